package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
)

// TestDescribeColumnMySQLSpan: describe_column samples a large MySQL
// table over its key's span (env/mysql's RowSpan), so a value stored
// only in the table's second half shows, which a sample of its first
// rows would miss; and its statements run on MariaDB within the
// engine's session memory.
func TestDescribeColumnMySQLSpan(t *testing.T) {
	url, name := mysqltest.Database(t, `
CREATE TABLE digits (n INT PRIMARY KEY);
INSERT INTO digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
CREATE TABLE large (id INT PRIMARY KEY, label VARCHAR(10));
INSERT INTO large SELECT 2 * (a.n * 10000 + b.n * 1000 + c.n * 100 + d.n * 10 + e.n) + 1,
  IF(a.n < 5, 'early', 'late')
FROM digits a, digits b, digits c, digits d, digits e;`)
	mysqltest.DropUser(t, mysql.Account(mysql.DefaultAccount, name))
	if err := mysql.EnsureReader(context.Background(), mysqltest.Admin(t), mysql.DefaultAccount, name); err != nil {
		t.Fatal(err)
	}
	db, err := mysql.New(mysql.Config{}).Open(context.Background(), mysql.Source(url, name))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := describe(t, NewRunner(Config{DescribeSampleRows: 2000}), db, env.MySQL, "large", "label").Content
	for _, want := range []string{"spread evenly over the table by key", "'early' (about 5", "'late' (about 5"} {
		if !strings.Contains(got, want) {
			t.Errorf("describe_column of a 100,000-row table: want %q in\n%s", want, got)
		}
	}
}
