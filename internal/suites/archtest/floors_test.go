package archtest

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// floorOf is the floor of a package of the module: the number of the
// first row of docs/architecture.md's "Floors" table whose folder holds
// it, or false when no row does.
func floorOf(floors map[string]int, pkg string) (int, bool) {
	best, n := "", 0
	for folder, floor := range floors {
		if (pkg == folder || strings.HasPrefix(pkg, folder+"/")) && len(folder) > len(best) {
			best, n = folder, floor
		}
	}
	return n, best != ""
}

// TestFloors checks that every package of the module sits on a floor of
// docs/architecture.md's "Floors" table and that no package's non-test
// code imports a package on a higher floor: imports run down the house,
// or across one floor, never up.
func TestFloors(t *testing.T) {
	floors := floorTable(t)
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		floor, ok := floorOf(floors, pkg)
		if !ok {
			t.Errorf("package %s is on no floor: add its folder to the Floors table of docs/architecture.md", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, own := strings.CutPrefix(imp, mod)
			if !own {
				continue
			}
			if up, ok := floorOf(floors, dep); ok && up > floor {
				t.Errorf("%s (floor %d) imports %s (floor %d): an import runs back up the house", pkg, floor, dep, up)
			}
		}
	}
}

// floorTable reads the "Floors" table of docs/architecture.md: each row a
// floor's number and the folders on it, comma-separated in backquotes.
func floorTable(t *testing.T) map[string]int {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Floors\n")
	if !ok {
		t.Fatalf("%s has no Floors section", docPath)
	}
	floors := map[string]int{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		n, err := strconv.Atoi(cells[0])
		if len(cells) < 2 || err != nil {
			if len(floors) > 0 && !strings.HasPrefix(line, "|") {
				break // the table's end
			}
			continue
		}
		for _, folder := range strings.Split(cells[1], ",") {
			folder = strings.Trim(strings.TrimSpace(folder), "`/")
			if folder != "" {
				floors[folder] = n
			}
		}
	}
	if len(floors) == 0 {
		t.Fatalf("no rows read from the Floors table of %s", docPath)
	}
	return floors
}
