package dbgen

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// companyScript is a source with every kind of constraint: primary keys
// (an INTEGER PRIMARY KEY, a composite one), UNIQUE on a column and on a
// pair, NOT NULL, a CHECK, foreign keys to another table, to itself and
// over two columns, a cycle of two keys, an index, a view and a trigger;
// text holding numbers, dates, and NULLs in some nullable columns.
const companyScript = `
CREATE TABLE dept (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, budget REAL CHECK (budget >= 0),
	code TEXT, region TEXT, founded TEXT, UNIQUE (code, region));
CREATE TABLE emp (id INTEGER PRIMARY KEY, dept_id INTEGER NOT NULL REFERENCES dept(id), boss INTEGER REFERENCES emp(id),
	name TEXT NOT NULL, age INTEGER, hired DATETIME, note TEXT, level VARCHAR(4));
CREATE TABLE proj (dept_code TEXT, dept_region TEXT, num INTEGER, title TEXT,
	PRIMARY KEY (dept_code, dept_region, num), FOREIGN KEY (dept_code, dept_region) REFERENCES dept(code, region));
CREATE TABLE a (id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES b(id));
CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id));
CREATE TABLE log (emp_id INTEGER, what TEXT);
CREATE INDEX emp_age ON emp(age);
CREATE VIEW senior AS SELECT name FROM emp WHERE age > 60;
CREATE TRIGGER emp_log AFTER INSERT ON emp BEGIN INSERT INTO log VALUES (new.id, 'hired'); END;
INSERT INTO dept VALUES (1, 'Sales', 1000.5, 'S', 'EU', '1999'), (2, 'Research', 2500.25, 'R', 'EU', '2004'),
	(3, 'Support', 0, 'S', 'US', '2010'), (4, 'Legal', 120.75, 'L', 'US', '1987');
INSERT INTO emp VALUES (1, 1, NULL, 'Ann', 45, '2010-03-01 09:00:00', NULL, '3'),
	(2, 1, 1, 'Bob', 31, '2012-07-15 10:30:00', 'part time', '1'),
	(3, 2, 1, 'Cleo', 28, '2019-01-02 08:00:00', NULL, '1'),
	(4, 3, 2, 'Dan', 62, '2001-11-30 17:45:00', 'remote', '2'),
	(5, 4, 2, 'Eve', 39, '2015-05-05 12:00:00', NULL, '2');
INSERT INTO proj VALUES ('S', 'EU', 1, 'Atlas'), ('S', 'EU', 2, 'Beacon'), ('R', 'EU', 1, 'Comet'), ('L', 'US', 7, 'Delta');
INSERT INTO a VALUES (1, NULL), (2, 1);
INSERT INTO b VALUES (1, 2), (2, NULL);
`

// companyGolds compare columns with literals in every form the reader
// knows.
var companyGolds = []string{
	"SELECT name FROM emp WHERE age > 30",
	"SELECT name FROM emp WHERE 40 <= age",
	"SELECT T1.name FROM emp AS T1 JOIN dept AS T2 ON T1.dept_id = T2.id WHERE T2.name = 'Sales'",
	"SELECT name FROM dept WHERE budget BETWEEN 100 AND 2000.5",
	"SELECT name FROM dept WHERE budget NOT BETWEEN 0 AND 50",
	"SELECT name FROM emp WHERE name IN ('Ann', 'Zed')",
	"SELECT name FROM emp WHERE name LIKE '%nn%'",
	"SELECT name FROM emp WHERE hired >= '2012-07-15 10:30:00'",
	"SELECT count(*) FROM dept WHERE founded = 2004",
	"SELECT count(*) FROM emp WHERE level = 3",
	"SELECT count(note), count(*) FROM emp",
}

func TestGenerateKeepsConstraints(t *testing.T) {
	p := analyze(t, source(t, companyScript), companyGolds, Config{MaxRows: 60})
	refused := 0
	for seed := range uint64(12) {
		path, st := generated(t, p, seed)
		refused += st.Refused
		checkConstraints(t, p, path)
		conn := reader(t, path)
		if n := count(t, conn, "SELECT count(*) FROM dept WHERE budget < 0"); n > 0 {
			t.Errorf("seed %d: %d budgets break the CHECK", seed, n)
		}
		if got, want := count(t, conn, "SELECT count(*) FROM emp"), st.Rows["emp"]; got != want {
			t.Errorf("seed %d: emp holds %d rows, Stats says %d", seed, got, want)
		}
		if got, want := count(t, conn, "SELECT count(*) FROM log"), st.Rows["log"]; got != want {
			t.Errorf("seed %d: log holds %d rows, Stats says %d: the trigger fired on generated rows", seed, got, want)
		}
	}
	if refused == 0 {
		t.Error("no row was refused: the CHECK on budget was never tested by a value below 0")
	}
}

func TestGenerateFollowsKeys(t *testing.T) {
	p := analyze(t, source(t, companyScript), companyGolds, Config{MaxRows: 60})
	byTable := map[string]ForeignKeyDescription{}
	for _, fk := range p.Describe().ForeignKeys {
		byTable[fk.Table+"."+strings.Join(fk.Columns, ",")] = fk
	}
	tests := []struct {
		key          string
		ref          string
		cycle        bool
		parentColumn string
	}{
		{"emp.dept_id", "dept", false, "id"},
		{"emp.boss", "emp", false, "id"},
		{"proj.dept_code,dept_region", "dept", false, "code,region"},
		{"a.b_id", "b", true, "id"},
		{"b.a_id", "a", false, "id"},
	}
	for _, tt := range tests {
		fk, ok := byTable[tt.key]
		if !ok {
			t.Errorf("no key %s in %+v", tt.key, byTable)
			continue
		}
		if got := strings.Join(fk.RefColumns, ","); fk.RefTable != tt.ref || got != tt.parentColumn || fk.Cycle != tt.cycle || fk.Origin != "declared" {
			t.Errorf("%s = %+v, want %s(%s) declared, cycle %v", tt.key, fk, tt.ref, tt.parentColumn, tt.cycle)
		}
	}
	selfRef, composite := 0, 0
	for seed := range uint64(8) {
		conn := reader(t, must(generated(t, p, seed)))
		selfRef += count(t, conn, "SELECT count(*) FROM emp WHERE boss IS NOT NULL")
		composite += count(t, conn, "SELECT count(*) FROM proj")
	}
	if selfRef == 0 || composite == 0 {
		t.Errorf("rows following emp.boss: %d, proj rows: %d; want some of each", selfRef, composite)
	}
}

// must returns the first of two results.
func must[T, U any](x T, _ U) T { return x }

func TestNullRule(t *testing.T) {
	p := analyze(t, source(t, companyScript), nil, Config{MaxRows: 60})
	want := map[string]bool{"emp.boss": true, "emp.note": true, "a.b_id": true, "b.a_id": true}
	nulls := map[string]int{}
	for seed := range uint64(10) {
		conn := reader(t, must(generated(t, p, seed)))
		for _, tb := range p.s.tables {
			for _, c := range tb.columns {
				q := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", quoteIdent(tb.name), quoteIdent(c.name))
				nulls[tb.name+"."+c.name] += count(t, conn, q)
			}
		}
	}
	for _, tb := range p.s.tables {
		for _, c := range tb.columns {
			name := tb.name + "." + c.name
			if got := nulls[name] > 0; got != want[name] {
				t.Errorf("%s: NULLs in the generated rows: %v, want %v (NOT NULL %v, source NULLs %d)", name, got, want[name], c.notNull, c.stats.nulls)
			}
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	p := analyze(t, source(t, companyScript), companyGolds, Config{})
	a, _ := generated(t, p, 42)
	b := filepath.Join(t.TempDir(), "again.sqlite")
	if _, err := p.Generate(context.Background(), 42, b); err != nil {
		t.Fatal(err)
	}
	c, _ := generated(t, p, 43)
	ab, bb, cb := read(t, a), read(t, b), read(t, c)
	if !bytes.Equal(ab, bb) {
		t.Error("seed 42 twice gives two different files")
	}
	if bytes.Equal(ab, cb) {
		t.Error("seeds 42 and 43 give the same file")
	}
}

// read reads a file whole.
func read(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestEmpty(t *testing.T) {
	src := source(t, companyScript)
	p := analyze(t, src, nil, Config{})
	dst := filepath.Join(t.TempDir(), "empty.sqlite")
	if err := p.Empty(context.Background(), dst); err != nil {
		t.Fatal(err)
	}
	conn := reader(t, dst)
	for _, tb := range p.s.tables {
		if n := count(t, conn, "SELECT count(*) FROM "+quoteIdent(tb.name)); n != 0 {
			t.Errorf("%s holds %d rows", tb.name, n)
		}
	}
	const entries = "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY 1"
	if got, want := strings1(t, conn, entries), strings1(t, reader(t, src), entries); !slices.Equal(got, want) {
		t.Errorf("the empty copy's schema is\n%q\nthe source's\n%q", got, want)
	}
	if err := p.Empty(context.Background(), dst); err == nil {
		t.Error("Empty wrote over an existing file")
	}
	if _, err := p.Generate(context.Background(), 1, dst); err == nil {
		t.Error("Generate wrote over an existing file")
	}
	if got := read(t, dst); len(got) == 0 {
		t.Error("a refused Generate removed the file that was there")
	}
}

func TestGenerateCancelled(t *testing.T) {
	p := analyze(t, source(t, companyScript), nil, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dst := filepath.Join(t.TempDir(), "cancelled.sqlite")
	if _, err := p.Generate(ctx, 1, dst); err == nil {
		t.Fatal("Generate on a cancelled context succeeded")
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("a failed Generate left %s behind (%v)", dst, err)
	}
}

func TestGenerateCountsMismatches(t *testing.T) {
	// An INTEGER PRIMARY KEY that follows a text key can hold only the
	// parent's texts that read as integers: the engine refuses the other
	// rows, and Generate goes on.
	p := analyze(t, source(t, `CREATE TABLE code (c TEXT PRIMARY KEY); INSERT INTO code VALUES ('a1'), ('b2');
		CREATE TABLE item (id INTEGER PRIMARY KEY REFERENCES code(c), what TEXT);`), nil, Config{MaxRows: 20})
	refused := 0
	for seed := range uint64(6) {
		path, st := generated(t, p, seed)
		refused += st.Refused
		checkConstraints(t, p, path)
	}
	if refused == 0 {
		t.Error("no row was refused")
	}
}

func TestGenerateConcurrently(t *testing.T) {
	p := analyze(t, source(t, companyScript), companyGolds, Config{})
	want := make([][]byte, 4)
	for seed := range want {
		want[seed] = read(t, must(generated(t, p, uint64(seed))))
	}
	dir := t.TempDir()
	errs := make(chan error, len(want))
	for seed := range want {
		go func() {
			_, err := p.Generate(context.Background(), uint64(seed), filepath.Join(dir, fmt.Sprint(seed)))
			errs <- err
		}()
	}
	for range want {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for seed := range want {
		if !bytes.Equal(read(t, filepath.Join(dir, fmt.Sprint(seed))), want[seed]) {
			t.Errorf("seed %d: generated alongside others, the file differs from the one generated alone", seed)
		}
	}
}

func TestChildRowsPreferGoldParents(t *testing.T) {
	// A gold counts the child rows of one parent value: drawn evenly from
	// about a hundred parents, a child would hold it in one row of a
	// hundred; preferring the parents that hold a gold's values, in far
	// more.
	var script strings.Builder
	script.WriteString("CREATE TABLE code (c TEXT PRIMARY KEY); CREATE TABLE use (id INTEGER PRIMARY KEY, c TEXT NOT NULL REFERENCES code(c));\n")
	for i := range 60 {
		fmt.Fprintf(&script, "INSERT INTO code VALUES ('c%d'); INSERT INTO use VALUES (%d, 'c%d');\n", i, i, i)
	}
	p := analyze(t, source(t, script.String()), []string{"SELECT count(*) FROM use WHERE c = 'c7'"}, Config{})
	rows, gold := 0, 0
	for seed := range uint64(30) {
		conn := reader(t, must(generated(t, p, seed)))
		if count(t, conn, "SELECT count(*) FROM code WHERE c = 'c7'") > 0 {
			rows += count(t, conn, "SELECT count(*) FROM use")
			gold += count(t, conn, "SELECT count(*) FROM use WHERE c = 'c7'")
		}
	}
	if rows == 0 || gold*20 < rows {
		t.Errorf("where the parent holds the gold's value, %d of %d child rows do; want one in twenty or more", gold, rows)
	}
}
