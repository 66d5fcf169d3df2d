package postgres

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// spellings are three URLs of one server, written differently.
func spellings(t *testing.T, base string) []string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, extra := range []string{"application_name=x", "connect_timeout=9", "application_name=y&connect_timeout=8"} {
		v := *u
		if v.RawQuery != "" {
			v.RawQuery += "&"
		}
		v.RawQuery += extra
		out = append(out, v.String())
	}
	return out
}

// sleepers runs n long statements on each of dbs until ctx ends; wait
// waits for them. The statement's text is its own: a cancel that lands
// late leaves it running until its statement_timeout, and the other
// tests of the package look for their own pg_sleep(30) on the server.
func sleepers(ctx context.Context, dbs []env.DB, n int) (wait func()) {
	var wg sync.WaitGroup
	for _, d := range dbs {
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d.Query(ctx, "SELECT pg_sleep(29.5)", env.Limits{Timeout: 30 * time.Second})
			}()
		}
	}
	return wg.Wait
}

// TestPgConnsBoundsAServerHoweverItsURLIsSpelled is issue 19's seventh
// case: three spellings of one server's URL share one pool of MaxConns.
func TestPgConnsBoundsAServerHoweverItsURLIsSpelled(t *testing.T) {
	base, schema := fixture(t)
	e := New(Config{MaxConns: 4, MaxSchemaConns: 4, ReserveConns: 1})
	var dbs []env.DB
	for _, u := range spellings(t, base) {
		dbs = append(dbs, open(t, e, u, schema))
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := sleepers(ctx, dbs, 4)
	defer func() { cancel(); wait() }()
	adm := dbs[0].(*db).srv.adm
	waitfor.Until(t, "12 statements admitted or waiting", func() bool {
		running, waiting := adm.Counts()
		return running+waiting == 12
	})
	if st := e.PoolStats(); st.Open > 4 || st.InUse > 4 {
		t.Errorf("three spellings of one server opened %d connections, %d in use; want at most --pg-conns 4", st.Open, st.InUse)
	}
	for _, d := range dbs[1:] {
		if d.(*db).srv != dbs[0].(*db).srv {
			t.Fatal("two spellings of one server got two pools")
		}
	}
}

// TestRunawaysLeaveConnectionsForOtherSchemas is issue 19's eighth case:
// runaway statements on two schemas take at most the connections outside
// the reserve, and a third schema's statement runs meanwhile.
func TestRunawaysLeaveConnectionsForOtherSchemas(t *testing.T) {
	base, a := fixture(t)
	_, b := fixture(t)
	_, c := fixture(t)
	e := New(Config{MaxConns: 8, MaxSchemaConns: 8})
	da, db2, dc := open(t, e, base, a), open(t, e, base, b), open(t, e, base, c)
	ctx, cancel := context.WithCancel(context.Background())
	wait := sleepers(ctx, []env.DB{da, db2}, 8)
	defer func() { cancel(); wait() }()
	adm := da.(*db).srv.adm
	waitfor.Until(t, "the runaways admitted or waiting", func() bool {
		running, waiting := adm.Counts()
		return running+waiting == 16
	})
	// One schema's runaways stop at 6 (2 kept in reserve); the other's
	// first statement may take one of the reserve, as every schema's first
	// statement may.
	if running, _ := adm.Counts(); running > 8-2+1 {
		t.Errorf("the runaways of two schemas hold %d of 8 connections; want at most 7", running)
	}
	for i := range 4 {
		rs, err := dc.Query(context.Background(), fmt.Sprintf("SELECT %d", i), env.Limits{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("a third schema's statement beside the runaways: %v", err)
		}
		if len(rs.Rows) != 1 {
			t.Fatalf("rows %v", rs.Rows)
		}
	}
}
