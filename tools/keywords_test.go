package tools

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestPostgresKeywords: every keyword the test server reserves (catcode
// 'R' or 'T' of pg_get_keywords()) is in pgReserved, so that a name
// spelled like one is shown quoted.
func TestPostgresKeywords(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT word FROM pg_get_keywords() WHERE catcode IN ('R', 'T')")
	if err != nil {
		t.Fatal(err)
	}
	words, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(words) < 90 {
		t.Fatalf("%d reserved keywords, %v; want about 100", len(words), err)
	}
	for _, w := range words {
		if !pgReserved[w] {
			t.Errorf("%q is reserved on the test server but not in pgReserved: add it (keywords.go)", w)
		}
	}
}
