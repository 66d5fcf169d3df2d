package sqlite

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

func TestLimits(t *testing.T) {
	d, _ := openFixture(t)
	tests := []struct {
		name          string
		sql           string
		lim           env.Limits
		want          [][]any
		wantTruncated bool
	}{
		{"row cap", "SELECT x FROM big ORDER BY x", env.Limits{MaxRows: 2},
			[][]any{{int64(1)}, {int64(2)}}, true},
		{"row cap met exactly", "SELECT x FROM big WHERE x <= 2 ORDER BY x", env.Limits{MaxRows: 2},
			[][]any{{int64(1)}, {int64(2)}}, false},
		{"row cap over a recursive query that never ends", "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r",
			env.Limits{MaxRows: 3}, [][]any{{int64(1)}, {int64(2)}, {int64(3)}}, true},
		{"text cell cut on a character", "SELECT 'héllo', 'ok'", env.Limits{MaxCellBytes: 2},
			[][]any{{"h…", "ok"}}, true},
		{"text cell at the limit", "SELECT 'ab'", env.Limits{MaxCellBytes: 2}, [][]any{{"ab"}}, false},
		{"blob cell cut", "SELECT x'010203'", env.Limits{MaxCellBytes: 2}, [][]any{{[]byte{1, 2}}}, true},
		{"numbers are never cut", "SELECT 123456789, 1.25", env.Limits{MaxCellBytes: 1},
			[][]any{{int64(123456789), 1.25}}, false},
		// each row costs 24 bytes, 16 a cell, 8 for x and 5 for "row N": 69
		{"result bytes cut", "SELECT x, label FROM big ORDER BY x", env.Limits{MaxResultBytes: 150},
			[][]any{{int64(1), "row 1"}, {int64(2), "row 2"}}, true},
		{"result bytes met exactly", "SELECT x, label FROM big WHERE x <= 2 ORDER BY x", env.Limits{MaxResultBytes: 138},
			[][]any{{int64(1), "row 1"}, {int64(2), "row 2"}}, false},
		// a NULL holds no bytes but still costs its row and cell: 40
		{"nulls count their cell", "SELECT NULL FROM big WHERE x <= 3", env.Limits{MaxResultBytes: 100},
			[][]any{{nil}, {nil}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := d.Query(context.Background(), tc.sql, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rs.Rows, tc.want) {
				t.Errorf("rows = %#v, want %#v", rs.Rows, tc.want)
			}
			if rs.Truncated != tc.wantTruncated {
				t.Errorf("truncated = %v, want %v", rs.Truncated, tc.wantTruncated)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	d, _ := openFixture(t)
	tests := []struct {
		name    string
		sql     string
		timeout time.Duration
		want    string
	}{
		{"while stepping", "SELECT count(*) FROM big AS a, big AS b, big AS c", 200 * time.Millisecond, "query timed out after 200ms"},
		{"while sorting", "SELECT a.x FROM big AS a, big AS b ORDER BY random()", 300 * time.Millisecond, "query timed out after 300ms"},
		// rows arrive fast but never end; reading must stop at the deadline
		{"while reading rows", "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r WHERE x % 1000 = 0", 200 * time.Millisecond, "query timed out after 200ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.Query(context.Background(), tc.sql, env.Limits{Timeout: tc.timeout, MaxRows: 100_000_000})
			if !errors.Is(err, env.ErrTimeout) || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			checkServing(t, d)
		})
	}
}

func TestZeroTimeoutMeansDefault(t *testing.T) {
	d, err := New(Config{DefaultTimeout: 150 * time.Millisecond}).Open(context.Background(), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, err = d.Query(context.Background(), "SELECT count(*) FROM big AS a, big AS b, big AS c", env.Limits{})
	if want := "query timed out after 150ms"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// TestCallerCancellationIsNotATimeout cancels a statement once it runs
// (its connection in use): the caller's cancel is not the engine's timeout.
func TestCallerCancellationIsNotATimeout(t *testing.T) {
	e := New(Config{})
	d, err := e.Open(context.Background(), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	returned, canceled := make(chan struct{}), make(chan bool, 1)
	go func() {
		running := false
		waitfor.Within(waitfor.Timeout, func() bool {
			select {
			case <-returned: // the statement ended before it was seen running
				return true
			default:
				running = e.PoolStats().InUse > 0
				return running
			}
		})
		cancel()
		canceled <- running
	}()
	_, err = d.Query(ctx, "SELECT count(*) FROM big AS a, big AS b, big AS c", env.Limits{Timeout: time.Minute})
	close(returned)
	if !<-canceled {
		t.Fatalf("the statement ended (%v) before it was seen running", err)
	}
	var qe *env.QueryError
	if !errors.Is(err, context.Canceled) || errors.As(err, &qe) {
		t.Fatalf("err = %v (%T), want context.Canceled and no *env.QueryError", err, err)
	}
	checkServing(t, d)
}

func TestEngineCeilings(t *testing.T) {
	d, err := New(Config{MaxResultRows: 100, MaxResultBytes: 1000, MaxValueBytes: 1000}).Open(context.Background(), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tests := []struct {
		name string
		sql  string
		lim  env.Limits
		kind error
	}{
		{"rows", "SELECT x FROM big", env.Limits{}, env.ErrTooLarge},
		{"rows asked beyond the ceiling", "SELECT x FROM big", env.Limits{MaxRows: 1000}, env.ErrTooLarge},
		{"bytes", "SELECT group_concat(label) FROM big WHERE x < 200 GROUP BY x % 2", env.Limits{}, env.ErrTooLarge},
		{"value length", "SELECT zeroblob(1001)", env.Limits{}, env.ErrTooLarge},
		{"value within length", "SELECT length(zeroblob(1000))", env.Limits{}, nil},
		{"rows within the ceiling", "SELECT x FROM big LIMIT 20", env.Limits{}, nil}, // 20 x 48 bytes
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.Query(context.Background(), tc.sql, tc.lim)
			if tc.kind == nil {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				return
			}
			checkKind(t, err, []error{tc.kind})
		})
	}
}
