package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// codeSpan is a `...` span of Markdown.
	codeSpan = regexp.MustCompile("`([^`]+)`")
	// qualified is a package's name (or folder) and one or two names in
	// it: env.WithHolder, transport.writeSched.mu, cmd/sqlgym.lockedWriter.mu.
	qualified = regexp.MustCompile(`^([a-z][a-z0-9]*(?:/[a-z][a-z0-9]*)*)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?$`)
	// funcName is a function, or a method as Type.name.
	funcName = regexp.MustCompile(`^(?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*$`)
)

// docSection is the text of the "## title" section of
// docs/architecture.md, up to the next section.
func docSection(t *testing.T, title string) string {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("%s has no %s section", docPath, title)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	return section
}

// TestLockOrderNamesExist checks the "Lock order" section of
// docs/architecture.md against the code: every lock it names
// (package.Type.field, a field ending in mu or Mu) is a sync.Mutex or
// sync.RWMutex field of that type, every other name qualified by a
// package is declared there, every Go file it names exists, and each
// function named after a file in a table's cell (outside parentheses)
// is declared in that file; the locks of a table's first two cells are
// mutexes whatever their names. A rename thus fails here until the tables
// follow it.
func TestLockOrderNamesExist(t *testing.T) {
	x := newCodeIndex(t)
	section := docSection(t, "Lock order")
	locks := checkSpans(t, x, "Lock order", section)
	if locks < 30 {
		t.Errorf("the Lock order section names %d locks; its tables were not read", locks)
	}
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		rows++
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		for i, cell := range cells {
			if i < 2 {
				checkLocks(t, x, cell)
			}
			checkWhere(t, x, aside.ReplaceAllString(cell, ""))
		}
	}
	if rows < 25 {
		t.Errorf("read %d rows of the Lock order tables, want at least 25", rows)
	}
}

// TestGlossaryNamesExist checks the names the "Glossary" section of
// docs/architecture.md points at: the Go files exist, and each name
// qualified by a package is declared there; and that it defines the
// words a newcomer meets first.
func TestGlossaryNamesExist(t *testing.T) {
	x := newCodeIndex(t)
	section := docSection(t, "Glossary")
	if n := strings.Count(section, "\n- **"); n < 25 {
		t.Errorf("the Glossary has %d entries, want at least 25", n)
	}
	for _, word := range []string{"admission", "budget", "cork", "flight", "held", "holder", "kept", "live", "origin",
		"recent", "reserve", "room", "segment", "settle", "stall", "suite", "ticket", "ties"} {
		if !regexp.MustCompile(`\n- \*\*` + word + `\b`).MatchString(section) {
			t.Errorf("the Glossary does not define %q", word)
		}
	}
	checkSpans(t, x, "Glossary", section)
}

// checkSpans checks every code span of text: Go files exist, names
// qualified by a known package are declared in it, and lock names are
// mutexes. It returns how many locks it checked.
func checkSpans(t *testing.T, x *codeIndex, where, text string) int {
	t.Helper()
	locks := 0
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		span := m[1]
		if strings.HasSuffix(span, ".go") {
			if _, err := os.Stat(filepath.Join(root, span)); err != nil {
				t.Errorf("%s names %s, which does not exist", where, span)
			}
			continue
		}
		q := qualified.FindStringSubmatch(span)
		if q == nil || x.folders(q[1]) == nil {
			continue // not a name in a package of the tree: a flag, a value, a field of a type named alone
		}
		pkg, name, member := q[1], q[2], q[3]
		switch {
		case member == "":
			if !x.hasTop(pkg, name) {
				t.Errorf("%s names %s: package %s declares no %s", where, span, pkg, name)
			}
		default:
			typ, ok := x.member(pkg, name, member)
			switch {
			case !ok:
				t.Errorf("%s names %s: %s.%s has no field or method %s", where, span, pkg, name, member)
			case strings.HasSuffix(member, "mu") || strings.HasSuffix(member, "Mu"):
				locks++
				if !isMutex(typ) {
					t.Errorf("%s names %s as a lock: it is not a sync.Mutex or sync.RWMutex field", where, span)
				}
			}
		}
	}
	return locks
}

// checkLocks checks a lock cell of a table (its first two): every
// package.Type.field it names is a mutex.
func checkLocks(t *testing.T, x *codeIndex, cell string) {
	t.Helper()
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		q := qualified.FindStringSubmatch(m[1])
		if q == nil || q[3] == "" || x.folders(q[1]) == nil {
			continue
		}
		if typ, ok := x.member(q[1], q[2], q[3]); ok && !isMutex(typ) {
			t.Errorf("the Lock order tables name %s as a lock: it is not a sync.Mutex or sync.RWMutex field", m[1])
		}
	}
}

// checkWhere checks a table cell that names Go files: each function
// named after a file is declared in that file.
func checkWhere(t *testing.T, x *codeIndex, cell string) {
	t.Helper()
	file := ""
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		span := m[1]
		switch {
		case strings.HasSuffix(span, ".go"):
			file = span
		case file != "" && funcName.MatchString(span) && !qualified.MatchString(span):
			if !x.declaresFunc(file, span) {
				t.Errorf("the Lock order tables name %s in %s, which declares no such function", span, file)
			}
		}
	}
}
