package docsnippets

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/needs"
)

// block is one fenced Python block: where it starts and its code.
type block struct {
	file string
	line int // the line of the block's first code line
	code string
}

// pythonBlocks extracts the ```python blocks of a Markdown file. A fence
// may be indented (inside a list item); its indentation is taken off
// every line of the block.
func pythonBlocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []block
	var cur *block
	indent := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur == nil && trimmed == "```python":
			indent = line[:len(line)-len(trimmed)]
			cur = &block{file: path, line: n + 1}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.code += strings.TrimPrefix(line, indent) + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Errorf("%s:%d: a python block is never closed", path, cur.line-1)
	}
	return out
}

// compileScript compiles each file named on its command line and prints
// "name<TAB>line<TAB>message" for each that does not compile.
const compileScript = `
import sys
for name in sys.argv[1:]:
    with open(name, encoding="utf-8") as f:
        src = f.read()
    try:
        compile(src, name, "exec")
    except SyntaxError as e:
        print("%s\t%d\t%s" % (name, e.lineno or 0, e.msg))
`

func TestPythonBlocksCompile(t *testing.T) {
	py := python3(t)
	docs, err := filepath.Glob(filepath.Join("..", "..", "..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs found: %v", err)
	}
	var blocks []block
	for _, path := range append(docs, filepath.Join("..", "..", "..", "README.md")) {
		blocks = append(blocks, pythonBlocks(t, path)...)
	}
	if len(blocks) < 8 {
		t.Fatalf("found %d python blocks, want at least docs/integrations.md's 8", len(blocks))
	}
	dir := t.TempDir()
	args := []string{"-c", compileScript}
	byName := map[string]block{}
	for i, b := range blocks {
		name := filepath.Join(dir, "block"+strconv.Itoa(i)+".py")
		if err := os.WriteFile(name, []byte(b.code), 0o644); err != nil {
			t.Fatal(err)
		}
		byName[name] = b
		args = append(args, name)
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, rest, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		lineno, msg, _ := strings.Cut(rest, "\t")
		n, _ := strconv.Atoi(lineno)
		b := byName[name]
		file, _ := filepath.Rel(filepath.Join("..", "..", ".."), b.file)
		t.Errorf("%s:%d: %s", file, b.line+n-1, msg)
	}
}

// python3 finds the interpreter; without one the test skips, except
// under CI=true, where it fails (.ci/run installs it).
func python3(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err == nil {
		return py
	}
	needs.Missing(t, fmt.Sprintf("python3 not found, needed for the documentation's Python check (.ci/run installs it): %v", err))
	return ""
}
