package suitegen

import (
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
)

// fuzzSchema is a schema for the fuzz target: two tables sharing a column
// name and a type.
func fuzzSchema() *Schema {
	return NewSchema([]env.Table{
		{Name: "singer", Columns: []env.Column{{Name: "id", Type: "INTEGER"}, {Name: "name", Type: "TEXT"}, {Name: "age", Type: "INTEGER"}, {Name: "country", Type: "text"}}},
		{Name: "concert", Columns: []env.Column{{Name: "id", Type: "INTEGER"}, {Name: "singer_id", Type: "INTEGER"}, {Name: "year", Type: "int"}, {Name: "Select", Type: "TEXT"}}},
	})
}

// FuzzNeighbours reads arbitrary text as a gold: nothing panics, the
// neighbours are the same on a second call, none repeats the gold or
// another once normalized, and the tie-settling rewrites, when made, end
// their ORDER BY with the columns' positions.
func FuzzNeighbours(f *testing.F) {
	for _, g := range []string{
		`SELECT T2.name, count(*) FROM concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.id WHERE T1.year >= 2014 GROUP BY T2.id HAVING count(*) > 1 ORDER BY T2.age DESC LIMIT 1`,
		`SELECT name FROM singer WHERE country = "France" AND age BETWEEN 20 AND 30 OR name LIKE '%Hey%'`,
		`select count(distinct country) from singer where id not in (select singer_id from concert) limit 3 offset 1;`,
		`SELECT max(age) - min(age) / 2.5, "Select" FROM singer, concert WHERE age > -1 -- comment`,
		`SELECT a FROM x UNION SELECT b FROM y ORDER BY 1`,
		`SELECT CASE WHEN age > 1 AND age < 9 THEN 'a''b' ELSE E'x\'' END FROM singer LEFT OUTER JOIN concert`,
		`((((`, `SELECT`, `'unterminated`, `SELECT 1e999, 99999999999999999999, -0.0`,
	} {
		f.Add(g)
	}
	sc := fuzzSchema()
	f.Fuzz(func(t *testing.T, gold string) {
		got := Neighbours(gold, sc, 5)
		if !slices.Equal(got, Neighbours(gold, sc, 5)) {
			t.Fatal("two calls differ")
		}
		seen := map[string]bool{sqltext.Normalize(gold): true}
		for _, n := range got {
			key := sqltext.Normalize(n.SQL)
			if seen[key] {
				t.Fatalf("neighbour %q repeats", n.SQL)
			}
			seen[key] = true
		}
		if asc, desc, ok := tieBreaks(gold, 2); ok && (!strings.Contains(asc, "1 ASC, 2 ASC") || !strings.Contains(desc, "1 DESC, 2 DESC")) {
			t.Fatalf("tie breaks %q, %q", asc, desc)
		}
	})
}
