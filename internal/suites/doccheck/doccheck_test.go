package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the module root, two folders up from this package.
const root = "../../.."

// documents are the Markdown files the checks read.
func documents(t *testing.T) []string {
	t.Helper()
	var docs []string
	for _, pattern := range []string{"README.md", "docs/*.md", "examples/*/README.md"} {
		names, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, names...)
	}
	if len(docs) < 5 {
		t.Fatalf("found only %d documents under %s", len(docs), root)
	}
	return docs
}

var (
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	bareName = regexp.MustCompile("(?:^|[\\s(`])([A-Za-z][A-Za-z0-9_-]*\\.md)\\b")
)

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLinksResolve checks that each relative link points at a file or
// folder that exists.
func TestLinksResolve(t *testing.T) {
	for _, doc := range documents(t) {
		for _, m := range link.FindAllStringSubmatch(read(t, doc), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := filepath.Join(filepath.Dir(doc), strings.SplitN(target, "#", 2)[0])
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", doc, target)
			}
		}
	}
}

// TestNamedDocumentsExist checks that a document named without a path
// (as in "the records of protocol.md") is one the project has.
func TestNamedDocumentsExist(t *testing.T) {
	have := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if strings.HasSuffix(d.Name(), ".md") {
			have[d.Name()] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range documents(t) {
		for _, m := range bareName.FindAllStringSubmatch(read(t, doc), -1) {
			if !have[m[1]] {
				t.Errorf("%s names %s, which is no document of the project", doc, m[1])
			}
		}
	}
}

// TestReadmeGoVersion checks that the README asks for the Go version
// go.mod requires.
func TestReadmeGoVersion(t *testing.T) {
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(read(t, filepath.Join(root, "go.mod")))
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	readme := read(t, filepath.Join(root, "README.md"))
	if !strings.Contains(readme, "Go "+m[1]) {
		t.Errorf("README.md does not say Go %s, which go.mod requires", m[1])
	}
	for _, v := range regexp.MustCompile(`Go (1\.\d+(?:\.\d+)?)\b`).FindAllStringSubmatch(readme, -1) {
		if v[1] != m[1] && !strings.HasPrefix(m[1], v[1]+".") {
			t.Errorf("README.md names Go %s; go.mod requires %s", v[1], m[1])
		}
	}
}

// TestReadmeOpensWithTheQuickStart checks the README's order for a new
// user: the two set-up commands (serve the demo, run the tests) in the
// first code block, then how to install the binary (go install) and a
// quick start as the first sections, before the reference (the flag
// table of serve).
func TestReadmeOpensWithTheQuickStart(t *testing.T) {
	readme := read(t, filepath.Join(root, "README.md"))
	first := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(readme)
	if first == nil || !strings.Contains(first[1], "go run ./cmd/sqlgym serve") || !strings.Contains(first[1], "scripts/test") {
		t.Fatalf("the README's first code block is not the two set-up commands: %q", first)
	}
	sections := regexp.MustCompile(`(?m)^## (.+)$`).FindAllStringSubmatch(readme, -1)
	if len(sections) < 2 || sections[0][1] != "Install" || sections[1][1] != "Quick start" {
		t.Fatalf("the README's first sections are %v, want Install and Quick start", sections[:min(len(sections), 2)])
	}
	install := readme[strings.Index(readme, "## Install"):strings.Index(readme, "## Quick start")]
	for _, want := range []string{"go install github.com/sqlgym/sqlgym/cmd/sqlgym@latest", "go build -o sqlgym ./cmd/sqlgym", "C compiler"} {
		if !strings.Contains(install, want) {
			t.Errorf("the README's Install section does not say %q", want)
		}
	}
	if qs, table := strings.Index(readme, "## Quick start"), strings.Index(readme, "| `--addr` |"); table >= 0 && table < qs {
		t.Error("the flag table of serve comes before the quick start")
	}
}
