package bigdb

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
)

// TestScriptMakesItsSizes builds a small database and checks its tables'
// rows, that names are distinct and that Name tells a stored one.
func TestScriptMakesItsSizes(t *testing.T) {
	path := Build(t, 5000)
	db, err := sqlite.New(sqlite.Config{}).Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := For(5000)
	rs, err := db.Query(context.Background(), `SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM customers),
  (SELECT count(*) FROM reviews), (SELECT count(DISTINCT name) FROM customers), (SELECT count(DISTINCT status) FROM orders),
  (SELECT name FROM customers WHERE id = 777), (SELECT length(body) FROM reviews WHERE id = 1)`, env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	row := rs.Rows[0]
	want := []any{int64(s.Orders), int64(s.Customers), int64(s.Reviews), int64(s.Customers), int64(len(Statuses)), Name(777), int64(251)}
	for i := range want {
		if row[i] != want[i] {
			t.Errorf("cell %d = %v, want %v (row %v)", i, row[i], want[i], row)
		}
	}
}
