package dbgen

import (
	"context"
	"slices"
	"testing"
)

// companySchema reads the schema of companyScript.
func companySchema(tb testing.TB) *schema {
	tb.Helper()
	db, conn, err := openSource(context.Background(), source(tb, companyScript))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	defer conn.Close()
	s, err := readSchema(context.Background(), conn)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// factsText renders what a gold says: "table.column op 'text'" for a
// string, without quotes for a number, "a.x = b.y" for a join.
func factsText(s *schema, f goldFacts) []string {
	var out []string
	name := func(r colRef) string { return s.tables[r.table].name + "." + s.col(r).name }
	for _, l := range f.literals {
		v := l.text
		if l.quoted {
			v = "'" + v + "'"
		}
		out = append(out, name(l.col)+" "+l.op+" "+v)
	}
	for _, j := range f.joins {
		out = append(out, name(j.a)+" = "+name(j.b))
	}
	return out
}

func TestReadGold(t *testing.T) {
	s := companySchema(t)
	tests := []struct {
		gold string
		want []string
	}{
		{"SELECT T1.name FROM emp AS T1 JOIN dept AS T2 ON T1.dept_id = T2.id WHERE T2.name = 'Sales'",
			[]string{"dept.name = 'Sales'", "emp.dept_id = dept.id"}},
		{"SELECT name FROM emp WHERE 30 < age", []string{"emp.age > 30"}},
		{"SELECT name FROM emp WHERE age >= -5 AND age <> 3 AND age > = 7", []string{"emp.age >= -5", "emp.age != 3", "emp.age >= 7"}},
		{"SELECT T1.name FROM emp AS T1 WHERE T1.age > 30 AND T1.id NOT IN (SELECT T1.emp_id FROM log AS T1 WHERE T1.what = 'x')",
			[]string{"emp.age > 30", "log.what = 'x'"}},
		{"SELECT * FROM emp JOIN dept ON emp.dept_id = dept.id WHERE name = 'Ann'",
			[]string{"emp.name = 'Ann'", "dept.name = 'Ann'", "emp.dept_id = dept.id"}},
		{`SELECT * FROM dept WHERE name = "Sales" AND "code" = 'S'`, []string{"dept.name = 'Sales'", "dept.code = 'S'"}},
		{"SELECT name FROM dept WHERE budget BETWEEN 100 AND 2000.5 OR budget NOT BETWEEN -1 AND 1",
			[]string{"dept.budget between 100", "dept.budget between 2000.5", "dept.budget between -1", "dept.budget between 1"}},
		{"SELECT name FROM emp WHERE name IN ('Ann', \"Bo\") AND level NOT IN (1, 2) AND id IN (SELECT emp_id FROM log)",
			[]string{"emp.name in 'Ann'", "emp.name in 'Bo'", "emp.level in 1", "emp.level in 2"}},
		{"SELECT name FROM emp WHERE name LIKE '%nn%' OR note NOT LIKE 'x_' OR name GLOB 'A*'",
			[]string{"emp.name like '%nn%'", "emp.note like 'x_'", "emp.name like 'A%'"}},
		{"SELECT dept_id FROM emp GROUP BY dept_id HAVING avg(age) > 30 AND count(*) > 2", []string{"emp.age > 30"}},
		{"SELECT * FROM emp AS e, dept AS d WHERE e.dept_id = d.id AND d.code = 'S'", []string{"dept.code = 'S'", "emp.dept_id = dept.id"}},
		{"select NAME from EMP where AGE > 1 and Emp.Level = '2'", []string{"emp.age > 1", "emp.level = '2'"}},
		{"SELECT note FROM emp WHERE note = 'it''s' AND hired > '2010-01-01'", []string{"emp.note = 'it's'", "emp.hired > '2010-01-01'"}},
		{"SELECT T2.name FROM emp AS T1 JOIN emp AS T2 ON T1.boss = T2.id", []string{"emp.boss = emp.id"}},
		{"SELECT * FROM emp AS a JOIN emp AS b ON a.age = b.age + 1", nil},
		{"hello world = 5", nil},
		{"SELECT * FROM nosuch WHERE x = 1", nil},
		{"SELECT name FROM emp WHERE age = (SELECT max(age) FROM emp)", nil},
	}
	for _, tt := range tests {
		if got := factsText(s, readGold(s, tt.gold)); !slices.Equal(got, tt.want) {
			t.Errorf("readGold(%q)\n = %q\nwant %q", tt.gold, got, tt.want)
		}
	}
}

// FuzzReadGold reads arbitrary text as a gold: it must not panic, every
// column it names must be one of the schema's, every operator one it
// knows, and reading the same text twice gives the same facts.
func FuzzReadGold(f *testing.F) {
	for _, g := range append(companyGolds,
		"SELECT T1.a FROM emp AS T1 WHERE T1.", "SELECT * FROM emp WHERE age BETWEEN 1 AND", "x IN (", "FROM emp AS",
		"SELECT * FROM emp WHERE name = 'unterminated", `SELECT "`, "SELECT avg( FROM emp", "FROM , emp", "- 1 < age",
	) {
		f.Add(g)
	}
	s := companySchema(f)
	ops := []string{"=", "!=", "<", "<=", ">", ">=", "between", "in", "like"}
	f.Fuzz(func(t *testing.T, gold string) {
		facts := readGold(s, gold)
		for _, l := range facts.literals {
			checkRef(t, s, l.col)
			if !slices.Contains(ops, l.op) {
				t.Fatalf("readGold(%q): operator %q", gold, l.op)
			}
		}
		for _, j := range facts.joins {
			checkRef(t, s, j.a)
			checkRef(t, s, j.b)
			if j.a == j.b {
				t.Fatalf("readGold(%q): a column joined with itself", gold)
			}
		}
		if again := readGold(s, gold); !slices.Equal(factsText(s, again), factsText(s, facts)) {
			t.Fatalf("readGold(%q) reads two ways", gold)
		}
	})
}

// checkRef fails when r names no column of s.
func checkRef(t *testing.T, s *schema, r colRef) {
	t.Helper()
	if r.table < 0 || r.table >= len(s.tables) || r.col < 0 || r.col >= len(s.tables[r.table].columns) {
		t.Fatalf("reference %+v outside the schema", r)
	}
}
