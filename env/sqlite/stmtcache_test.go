package sqlite

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// openOneConn opens the fixture on a single connection, so that every
// call runs on the connection the previous one left its statements on.
func openOneConn(t *testing.T, cfg Config) (*Engine, *db) {
	t.Helper()
	cfg.MaxConns = 1
	e := New(cfg)
	d, err := e.Open(context.Background(), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return e, d.(*db)
}

// kept is how many statements the pool's only connection keeps prepared.
func kept(t *testing.T, d *db) int {
	t.Helper()
	pc, err := d.pool.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	n := -1
	pc.Raw(func(dc any) error { n = len(dc.(*conn).stmts.entries); return nil })
	return n
}

// TestRepeatedStatementIsReused: the same text run again on a connection
// is not prepared again, and gives the same result, reads included,
// whether or not the first run recorded them.
func TestRepeatedStatementIsReused(t *testing.T) {
	e, d := openOneConn(t, Config{})
	const q = "SELECT T1.name, T2.year FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id ORDER BY 2, 1"
	first, err := d.Query(context.Background(), q, env.Limits{}) // execute_sql records no reads
	if err != nil {
		t.Fatal(err)
	}
	before := e.PoolStats()
	for _, lim := range []env.Limits{{Reads: true}, {}, {Reads: true, MaxRows: 1}} {
		rs, err := d.Query(context.Background(), q, lim)
		if err != nil {
			t.Fatal(err)
		}
		wantRows := first.Rows
		if lim.MaxRows == 1 {
			wantRows = first.Rows[:1]
		}
		if !reflect.DeepEqual(rs.Rows, wantRows) || !reflect.DeepEqual(rs.Columns, first.Columns) {
			t.Errorf("%+v: rows %v columns %v, want %v %v", lim, rs.Rows, rs.Columns, wantRows, first.Columns)
		}
		wantCols, wantTables := []string{"concert.singer_id", "concert.year", "singer.name", "singer.singer_id"}, []string{"concert", "singer"}
		if !lim.Reads {
			wantCols, wantTables = nil, nil
		}
		if !reflect.DeepEqual(rs.ReadColumns, wantCols) || !reflect.DeepEqual(rs.ReadTables, wantTables) {
			t.Errorf("%+v: reads %q %q, want %q %q", lim, rs.ReadColumns, rs.ReadTables, wantCols, wantTables)
		}
	}
	after := e.PoolStats()
	if got := after.Reused - before.Reused; got != 3 {
		t.Errorf("reused %d statements, want 3", got)
	}
	if got := after.Prepared - before.Prepared; got != 0 {
		t.Errorf("prepared %d statements again, want 0", got)
	}
}

// TestRawWrappedStatementIsReused: a statement rewritten to read stored
// values raw keeps returning them raw when both its forms come from the
// cache.
func TestRawWrappedStatementIsReused(t *testing.T) {
	e, d := openOneConn(t, Config{})
	const q = "SELECT born, active FROM singer ORDER BY singer_id"
	var results [][][]any
	for range 3 {
		rs, err := d.Query(context.Background(), q, env.Limits{Reads: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rs.ReadColumns, []string{"singer.active", "singer.born", "singer.singer_id"}) {
			t.Errorf("reads %q", rs.ReadColumns)
		}
		results = append(results, rs.Rows)
	}
	if got := results[0][1][0]; got != "not a date" {
		t.Errorf("born of row 2 = %#v, want the stored text", got)
	}
	for _, r := range results[1:] {
		if !reflect.DeepEqual(r, results[0]) {
			t.Errorf("rows %v, want %v", r, results[0])
		}
	}
	if st := e.PoolStats(); st.Reused < 4 {
		t.Errorf("reused %d statements, want at least 4 (both forms, twice)", st.Reused)
	}
}

// TestRefusedStatementsAreNeverKept: a denied or failing statement is
// refused again, with the same message, each time it comes.
func TestRefusedStatementsAreNeverKept(t *testing.T) {
	_, d := openOneConn(t, Config{})
	before := kept(t, d) // the catalog query Open ran
	for _, q := range []string{
		"INSERT INTO singer (name) VALUES ('x')",
		"SELECT load_extension('x')",
		"SELECT nope FROM singer",
		"PRAGMA cache_size = 1",
		"SELECT ?",
	} {
		_, err1 := d.Query(context.Background(), q, env.Limits{})
		_, err2 := d.Query(context.Background(), q, env.Limits{})
		if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
			t.Errorf("%s: errors %v then %v, want the same error twice", q, err1, err2)
		}
	}
	if n := kept(t, d) - before; n != 0 {
		t.Errorf("%d refused statements kept", n)
	}
}

// TestInterruptedStatementIsNotKept: a statement stopped by its timeout is
// finalized, and the connection runs the next statements as usual.
func TestInterruptedStatementIsNotKept(t *testing.T) {
	_, d := openOneConn(t, Config{})
	before := kept(t, d)
	const slow = "SELECT count(*) FROM big a, big b, big c"
	for range 2 {
		_, err := d.Query(context.Background(), slow, env.Limits{Timeout: 20 * time.Millisecond})
		if !errors.Is(err, env.ErrTimeout) {
			t.Fatalf("err = %v, want a timeout", err)
		}
	}
	if n := kept(t, d) - before; n != 0 {
		t.Errorf("%d statements kept after two timeouts, want 0", n)
	}
	rs, err := d.Query(context.Background(), "SELECT count(*) FROM big", env.Limits{})
	if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != int64(10000) {
		t.Fatalf("after the timeouts: %v, %v", rs, err)
	}
}

// TestStatementCacheIsBounded: the statements a connection keeps hold
// at most StmtCacheBytes of text, the least recently used going first;
// none is longer than maxCachedSQL; none is kept when StmtCacheBytes is
// negative.
func TestStatementCacheIsBounded(t *testing.T) {
	_, d := openOneConn(t, Config{StmtCacheBytes: 20})
	for _, q := range []string{"SELECT 1", "SELECT 2", "SELECT 33", "SELECT 1"} {
		if _, err := d.Query(context.Background(), q, env.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := keptTexts(t, d), []string{"SELECT 33", "SELECT 1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("kept %q, want %q (20 bytes of text, most recent last)", got, want)
	}

	_, big := openOneConn(t, Config{StmtCacheBytes: 1 << 20})
	long := "SELECT 1 /*" + strings.Repeat("x", maxCachedSQL) + "*/"
	if _, err := big.Query(context.Background(), long, env.Limits{}); err != nil {
		t.Fatal(err)
	}
	for _, text := range keptTexts(t, big) {
		if len(text) > maxCachedSQL {
			t.Errorf("a statement of %d bytes was kept", len(text))
		}
	}

	e, off := openOneConn(t, Config{StmtCacheBytes: -1})
	for range 2 {
		if _, err := off.Query(context.Background(), "SELECT 1", env.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	if st := e.PoolStats(); st.Reused != 0 || kept(t, off) != 0 {
		t.Errorf("with no cache: %d reused, %d kept", st.Reused, kept(t, off))
	}
}

// keptTexts is the text of the statements the pool's only connection
// keeps, least recently used first, and checks their bytes add up.
func keptTexts(t *testing.T, d *db) []string {
	t.Helper()
	pc, err := d.pool.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	var out []string
	pc.Raw(func(dc any) error {
		c := dc.(*conn).stmts
		n := 0
		for _, e := range c.entries {
			out = append(out, e.text)
			n += len(e.text)
		}
		if n != c.bytes || n > c.maxBytes {
			t.Errorf("kept %d bytes of text, counted %d, bound %d", n, c.bytes, c.maxBytes)
		}
		return nil
	})
	return out
}
