package dbgen

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// chainScript is a source of n tables, each but the first a child of the
// one before, with an integer key, a unique code, a text, a real and a
// date, and rows rows each.
func chainScript(n, rows int) string {
	var b strings.Builder
	for i := range n {
		ref := ""
		if i > 0 {
			ref = fmt.Sprintf(" REFERENCES t%d(id)", i-1)
		}
		fmt.Fprintf(&b, "CREATE TABLE t%d (id INTEGER PRIMARY KEY, parent INTEGER%s, code TEXT UNIQUE, name TEXT NOT NULL, amount REAL, created DATETIME);\n", i, ref)
		for r := range rows {
			fmt.Fprintf(&b, "INSERT INTO t%d VALUES (%d, %d, 'c%d-%d', 'name %d', %d.25, '2020-01-%02d 10:00:00');\n", i, r+1, r%5+1, i, r, r%7, r*3, r%28+1)
		}
	}
	return b.String()
}

// BenchmarkGenerate writes databases of ten tables of up to 200 rows.
func BenchmarkGenerate(b *testing.B) {
	p := analyze(b, source(b, chainScript(10, 20)), []string{"SELECT name FROM t3 WHERE amount > 2.5 AND created < '2020-01-15 10:00:00'"}, Config{MaxRows: 200})
	dir := b.TempDir()
	rows := 0
	var seed uint64
	for b.Loop() {
		seed++
		st, err := p.Generate(context.Background(), seed, filepath.Join(dir, fmt.Sprintf("%d.sqlite", seed)))
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range st.Rows {
			rows += n
		}
	}
	b.ReportMetric(float64(rows)/float64(seed), "rows/op")
}
