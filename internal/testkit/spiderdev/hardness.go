package spiderdev

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OfficialHardness returns Spider's official hardness level (easy,
// medium, hard, extra) of every question of the shared dev.json, by task
// id as sqlgym names it (spider-dev/<index>): testdata/hardness.tsv,
// computed once with Spider's own evaluator (taoyds/spider, evaluation.py,
// Evaluator.eval_hardness on the gold parsed by process_sql.py's get_sql;
// the file's header says how it was run).
func OfficialHardness(tb testing.TB) map[string]string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "internal", "testkit", "spiderdev", "testdata", "hardness.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	labels := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, level, ok := strings.Cut(line, "\t")
		if !ok {
			tb.Fatalf("hardness.tsv: line %q: want task_id<TAB>level", line)
		}
		labels[id] = level
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(labels) != Tasks {
		tb.Fatalf("hardness.tsv: %d labels, want %d", len(labels), Tasks)
	}
	return labels
}
