package archtest

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docPath is the map whose "Import rules" table allowed encodes.
const docPath = "../../../docs/architecture.md"

// TestRulesMatchTheDocsTable reads the "Import rules" table of
// docs/architecture.md and checks that it and allowed say the same: a
// rule for the same packages, and for each package the same imports (the
// table names other modules by the tail of their path, "zap" for
// go.uber.org/zap, and a module for all its packages), so neither can
// change without the other.
func TestRulesMatchTheDocsTable(t *testing.T) {
	table := importTable(t)
	for pkg, items := range table {
		rules, ok := allowed[pkg]
		if !ok {
			t.Errorf("docs/architecture.md has a rule for %s, the test has none", pkg)
			continue
		}
		for _, item := range items {
			if !slices.ContainsFunc(rules, func(r string) bool { return names(item, r) }) {
				t.Errorf("docs/architecture.md lets %s import %s, the test does not", pkg, item)
			}
		}
		for _, r := range rules {
			if !slices.ContainsFunc(items, func(item string) bool { return names(item, r) }) {
				t.Errorf("the test lets %s import %s, docs/architecture.md does not", pkg, r)
			}
		}
	}
	for pkg := range allowed {
		if _, ok := table[pkg]; !ok {
			t.Errorf("the test has a rule for %s, docs/architecture.md has none", pkg)
		}
	}
}

// names reports whether item, as the table writes an import, names rule,
// as allowed writes it: sqlgym's packages by their path in the module,
// other modules by the tail of their path or a prefix of it.
func names(item, rule string) bool {
	if pkg, ok := strings.CutPrefix(rule, mod); ok {
		return item == pkg
	}
	return rule == item || strings.HasSuffix(rule, "/"+item) || strings.HasPrefix(rule, item+"/")
}

// aside is a parenthesized remark of the table, which names no import.
var aside = regexp.MustCompile(`\([^()]*\)`)

// importTable is the "Import rules" table: each package's imports
// besides the standard library. Rows that allow anything (the test kits,
// cmd) are left out, as allowed leaves them; a row that allows nothing
// has no imports.
func importTable(t *testing.T) map[string][]string {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Import rules\n")
	if !ok {
		t.Fatalf("%s has no Import rules section", docPath)
	}
	table := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 2 || cells[0] == "package" || strings.HasPrefix(cells[0], "---") {
			if len(table) > 0 && !strings.HasPrefix(line, "|") {
				break // the table's end
			}
			continue
		}
		imports := aside.ReplaceAllString(cells[1], "")
		if strings.HasPrefix(imports, "anything") {
			continue
		}
		items := []string{}
		for _, item := range strings.Split(imports, ",") {
			item = strings.TrimSpace(item)
			if item != "" && item != "stdlib" && !strings.HasPrefix(item, "nothing") {
				items = append(items, item)
			}
		}
		table[cells[0]] = items
	}
	if len(table) == 0 {
		t.Fatalf("no rows read from the Import rules table of %s", docPath)
	}
	return table
}
