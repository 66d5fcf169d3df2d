package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
)

// TestMySQLKeywords: every keyword of the test server that fails as a
// bare column name is in mysqlReserved, so that a name spelled like one
// is shown quoted; and one that is shown quoted runs so.
func TestMySQLKeywords(t *testing.T) {
	admin := mysqltest.Admin(t)
	ctx := context.Background()
	rows, err := admin.QueryContext(ctx, "SELECT lower(word) FROM information_schema.KEYWORDS")
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			t.Fatal(err)
		}
		words = append(words, w)
	}
	if rows.Close(); len(words) < 500 {
		t.Fatalf("%d keywords; want about 700", len(words))
	}
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = 'ANSI_QUOTES'"); err != nil {
		t.Fatal(err)
	}
	for _, w := range words {
		if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			continue
		}
		bare := conn.QueryRowContext(ctx, "SELECT "+w+" FROM (SELECT 1 AS \""+w+"\") AS x").Scan(new(any))
		if bare != nil && !mysqlReserved[w] {
			t.Errorf("%q fails bare on the test server (%v) but is not in mysqlReserved: add it (keywords_mysql.go)", w, bare)
		}
		shown := quoteIdent(w, env.MySQL)
		if err := conn.QueryRowContext(ctx, "SELECT "+shown+" FROM (SELECT 1 AS "+shown+") AS x").Scan(new(any)); err != nil {
			t.Errorf("%s, as shown: %v", shown, err)
		}
	}
}

func TestMySQLPrompt(t *testing.T) {
	text := buildSystemPrompt(env.MySQL, "tags", 5, DefaultSet())
	for _, want := range []string{"writing MySQL SQL", "table_schema = DATABASE()", "DIV divides integers", "CONCAT(a, b)"} {
		if !strings.Contains(text, want) {
			t.Errorf("MySQL prompt does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(buildSystemPrompt(env.SQLite, "tags", 5, DefaultSet()), "DIV") {
		t.Error("the SQLite prompt tells of MySQL's DIV")
	}
	if got := quoteIdent("order", env.MySQL) + quoteIdent("Name", env.MySQL); got != `"order"Name` {
		t.Errorf("MySQL names shown as %s, want \"order\"Name", got)
	}
}
