package dbimport

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/sqlitetest"
)

// looseDB holds what SQLite's loose typing allows: text in an integer
// column, a column of every class, NULLs in a primary key, a dangling
// foreign key, and text PostgreSQL cannot hold.
const looseDB = `
CREATE TABLE Item (id INTEGER PRIMARY KEY, n int, x, r REAL, d DECIMAL(5,2), s text NOT NULL);
INSERT INTO Item VALUES (1, 10, 'a', 1.5, 2, 'x'), (2, 'eleven', 3, 2, 2.5, CAST(X'610062' AS TEXT)), (3, NULL, X'00ff', NULL, NULL, CAST(X'ff' AS TEXT));
CREATE TABLE code (c text PRIMARY KEY, item_id int REFERENCES Item(id));
INSERT INTO code VALUES (NULL, 1), (NULL, 9);
`

func openLoose(t *testing.T) env.DB {
	t.Helper()
	return openBuilt(t, looseDB)
}

// openBuilt opens a SQLite database built with script; it is closed when
// the test ends.
func openBuilt(t *testing.T, script string) env.DB {
	return sqlitetest.Open(t, script)
}

func TestCopyDBKeepsEveryValue(t *testing.T) {
	ctx := context.Background()
	src := openLoose(t)
	conn := connect(t, pgtest.Database(t))
	var rep *DBCopy
	for range 2 { // a second import replaces the first
		var err error
		if rep, err = CopyDB(ctx, src, conn, "Loose", CopyConfig{PageRows: 2}); err != nil {
			t.Fatal(err)
		}
	}
	item := rep.Tables[0]
	types, coerced := map[string]string{}, map[string]int64{}
	for _, c := range item.Columns {
		types[c.Name], coerced[c.Name] = c.Type, c.Coerced
	}
	wantTypes := map[string]string{"id": TypeBigint, "n": TypeText, "x": TypeBytea, "r": TypeDouble, "d": TypeDouble, "s": TypeText}
	wantCoerced := map[string]int64{"id": 0, "n": 1, "x": 2, "r": 0, "d": 1, "s": 0}
	if item.Name != "item" || item.Rows != 3 || !reflect.DeepEqual(types, wantTypes) || !reflect.DeepEqual(coerced, wantCoerced) {
		t.Errorf("item: %s, %d rows, types %v, coerced %v; want item, 3, %v, %v", item.Name, item.Rows, types, coerced, wantTypes, wantCoerced)
	}
	if got := item.Columns[5].Repaired; got != 2 {
		t.Errorf("s: %d values repaired; want 2 (a NUL byte, invalid UTF-8)", got)
	}
	got := pgRows(t, conn, `SELECT id, n, x, r, d, s FROM "Loose".item ORDER BY id`)
	want := [][]any{
		{int64(1), "10", []byte("a"), 1.5, 2.0, "x"},
		{int64(2), "eleven", []byte("3"), 2.0, 2.5, "ab"},
		{int64(3), nil, []byte{0, 0xff}, nil, nil, "\uFFFD"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, w := range []string{"primary key of code not created", "foreign key code(item_id) -> item(id) not created"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes %q lack %q", notes, w)
		}
	}
	if n := pgRows(t, conn, `SELECT count(*) FROM "Loose".code`); n[0][0] != int64(2) {
		t.Errorf("code: %v rows; want 2 (a key that fails keeps its rows)", n[0][0])
	}
	if nn := pgRows(t, conn, `SELECT is_nullable FROM information_schema.columns WHERE table_schema = 'Loose' AND column_name = 's'`); nn[0][0] != "NO" {
		t.Errorf("item.s nullable %v; want NOT NULL carried over", nn[0][0])
	}
}

// TestImportedSchemaReadsOnly: the role the engine reads a copied schema
// as (postgres.SchemaRole of the reader, which postgres.EnsureReader
// makes, as Import does after each copy) reads it and writes nothing.
func TestImportedSchemaReadsOnly(t *testing.T) {
	ctx := context.Background()
	conn := connect(t, pgtest.Database(t))
	if _, err := CopyDB(ctx, openLoose(t), conn, "Loose", CopyConfig{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(ctx, `DROP OWNED BY sqlgym_test_reader, "sqlgym_test_reader.Loose"; DROP ROLE sqlgym_test_reader, "sqlgym_test_reader.Loose"`); err != nil {
			t.Errorf("drop the test role: %v", err)
		}
	})
	for range 2 { // the role is reused
		if err := postgres.EnsureReader(ctx, conn, "sqlgym_test_reader", "Loose"); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+pgx.Identifier{postgres.SchemaRole("sqlgym_test_reader", "Loose")}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM "Loose".item`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("reader SELECT: %d, %v; want 3", n, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM "Loose".item`); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("reader DELETE: %v; want permission denied", err)
	}
}

// pgRows reads a query's rows on the copied schema "Loose" through
// env/postgres, as the reader role, the way the golds are verified.
func pgRows(t *testing.T, conn *pgx.Conn, q string) [][]any {
	t.Helper()
	ctx := context.Background()
	if err := postgres.EnsureReader(ctx, conn, postgres.DefaultRole, "Loose"); err != nil {
		t.Fatal(err)
	}
	db := openSchema(t, postgres.New(postgres.Config{}), conn, "Loose")
	rs, err := db.Query(ctx, q, env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return rs.Rows
}
