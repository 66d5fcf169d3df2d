package dbimport

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
)

// The traps of MySQL's dialect and collation, each a gold that must come
// out of the import verified on a real server: a table named by a
// keyword, a trailing space SQLite compares (the no-pad collation), a
// backslash MySQL would read as an escape, COUNT (*) with a space, a
// table name in another case, and a text column of numbers holding a
// value too long for VARCHAR.
func TestImportMySQLVerifiesTrickyGolds(t *testing.T) {
	url := mysqltest.ServerURL(t)
	db := mysqltest.Name()
	path := filepath.Join(t.TempDir(), db+".sqlite")
	err := sqlite.Build(context.Background(), path, `CREATE TABLE Show (id INTEGER PRIMARY KEY, city TEXT, path TEXT, note TEXT);
		INSERT INTO Show VALUES (1, 'Anthony ', 'a\b', 12), (2, 'Aberdeen', 'c', printf('%.300c', 'x'));`)
	if err != nil {
		t.Fatal(err)
	}
	golds := []string{
		`SELECT count(*) FROM show WHERE city = 'Anthony'`,
		`SELECT id FROM Show WHERE path = 'a\b'`,
		`SELECT count (*) FROM SHOW`,
		`SELECT T1.city FROM Show AS T1 WHERE T1.note LIKE "x%"`,
		`SELECT sum(id) / count(*) FROM show`,
	}
	ds := &env.Dataset{Name: "tricky", Dialect: env.SQLite, DBs: map[string]string{db: path}}
	for i, g := range golds {
		ds.Tasks = append(ds.Tasks, env.Task{ID: "tricky/" + string(rune('a'+i)), Dataset: "tricky", DBID: db, GoldSQL: g})
	}
	prefix := "sqlgym_test_imp"
	dropImported(t, ds, prefix)
	imp, err := ImportMySQL(context.Background(), MySQLConfig{Dataset: ds, SQLite: sqlite.New(sqlite.Config{}), URL: url, Account: prefix})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range imp.Golds {
		if g.Category != Kept && g.Category != Rewritten {
			t.Errorf("%s: %s (%s), tried %s", golds[i], g.Category, g.Reason, g.Tried)
		}
	}
	if r := imp.Report.Databases[0].Reserved; len(r) != 1 || r[0] != "show" {
		t.Errorf("reserved names %q; want [show]", r)
	}
	if typ := imp.Report.Databases[0].Tables[0].Columns[3].Type; typ != "LONGTEXT" {
		t.Errorf("note's type %s; want LONGTEXT (a value of 300 characters)", typ)
	}
}
