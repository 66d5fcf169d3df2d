package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// spanScript is a 100,000-row table keyed by an integer, whose label
// changes half-way through its rows, and tables without a span.
const spanScript = `
CREATE TABLE digits (n INT PRIMARY KEY);
INSERT INTO digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
CREATE TABLE large (id INT PRIMARY KEY, label VARCHAR(10));
INSERT INTO large SELECT 2 * (a.n * 10000 + b.n * 1000 + c.n * 100 + d.n * 10 + e.n) + 1,
  IF(a.n < 5, 'early', 'late')
FROM digits a, digits b, digits c, digits d, digits e;
CREATE TABLE keyless (label VARCHAR(10));
INSERT INTO keyless VALUES ('a');
CREATE TABLE textkey (k VARCHAR(10) PRIMARY KEY);
CREATE TABLE empty (id BIGINT PRIMARY KEY);
`

// TestRowSpan checks the span of a table keyed by an integer: its keys'
// bounds and density, and that runs of Range spread over it (as
// describe_column reads a sample) reach rows a read of the table's
// first rows would not.
func TestRowSpan(t *testing.T) {
	url, name := database(t, spanScript)
	d := open(t, Config{}, url, name)
	ctx := context.Background()
	s, err := d.RowSpan(ctx, "LARGE")
	if err != nil {
		t.Fatal(err)
	}
	if s.Position != "`id`" || s.Unit != "key" || s.Shared || s.Lo != 1 || s.Hi != 200000 || s.PerPosition < 0.49 || s.PerPosition > 0.51 {
		t.Fatalf("span %+v: want keys 1 to 199999, one row in two", s)
	}
	// Ten runs of 100 rows over the span, each a window at the start of
	// its tenth.
	var arms []string
	for i := range int64(10) {
		a := s.Lo + i*(s.Hi-s.Lo)/10
		arms = append(arms, fmt.Sprintf("SELECT * FROM (SELECT %s AS p, label AS v FROM large WHERE %s LIMIT 100) AS run%d",
			s.Position, fmt.Sprintf(s.Range, a, a+200), i))
	}
	rs := query(t, d, "SELECT v, COUNT(*), MAX(p) FROM ("+strings.Join(arms, " UNION ALL ")+") AS sample GROUP BY v ORDER BY v", env.Limits{})
	if got := fmt.Sprint(rs.Rows); got != "[[early 500 80199] [late 500 180199]]" {
		t.Errorf("sample over the span: %s, want 500 rows of each half, the last near the end", got)
	}
	first := query(t, d, "SELECT DISTINCT label FROM (SELECT label FROM large LIMIT 1000) AS f", env.Limits{})
	if fmt.Sprint(first.Rows) != "[[early]]" {
		t.Errorf("first rows: %v, want only the early half (what a span avoids)", first.Rows)
	}
	for _, table := range []string{"keyless", "textkey"} {
		if s, err := d.RowSpan(ctx, table); err != nil || s.Position != "" {
			t.Errorf("%s: span %+v %v, want none", table, s, err)
		}
	}
	if s, err := d.RowSpan(ctx, "empty"); err != nil || s.Hi > s.Lo {
		t.Errorf("empty table: span %+v %v, want an empty one", s, err)
	}
	if _, err := d.RowSpan(ctx, "nope"); !errors.Is(err, env.ErrNoSuchTable) {
		t.Errorf("unknown table: %v, want ErrNoSuchTable", err)
	}
}

// TestQueryEach checks that QueryEach hands over every row of a
// result past the engine's row ceiling, stops when told to (the
// connection left usable), and checks its statement as Query does.
func TestQueryEach(t *testing.T) {
	d, _ := openFixture(t, Config{MaxResultRows: 100})
	ctx := context.Background()
	n, sum := 0, int64(0)
	err := d.QueryEach(ctx, "SELECT x, label FROM big", env.Limits{MaxCellBytes: 3}, func(row []any) bool {
		n++
		sum += row[0].(int64)
		if l := row[1].(string); l != "row…" {
			t.Fatalf("cell %q, want cut to 3 bytes and a mark", l)
		}
		return true
	})
	if err != nil || n != 10000 || sum != 10000*10001/2 {
		t.Errorf("every row: %d rows, sum %d, %v; want 10000 rows", n, sum, err)
	}
	n = 0
	if err := d.QueryEach(ctx, "SELECT x FROM big ORDER BY x", env.Limits{}, func([]any) bool { n++; return n < 5 }); err != nil || n != 5 {
		t.Errorf("stopped after 5: %d rows, %v", n, err)
	}
	if rs := query(t, d, "SELECT COUNT(*) FROM big", env.Limits{}); rs.Rows[0][0] != int64(10000) {
		t.Errorf("after a stopped stream: %v", rs.Rows)
	}
	if err := d.QueryEach(ctx, "SELECT LOAD_FILE('/etc/passwd')", env.Limits{}, func([]any) bool { return true }); !errors.Is(err, env.ErrDenied) {
		t.Errorf("denied function: %v, want ErrDenied", err)
	}
}
