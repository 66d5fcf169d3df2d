package sqlite

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// TestConcurrentQueries has many goroutines share one DB, mixing ordinary
// queries, schema calls, denied statements and statements that time out;
// each must get its own answer.
func TestConcurrentQueries(t *testing.T) {
	d, path := openFixture(t)
	want := fileHash(t, path)
	const workers, rounds = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				if err := oneRound(d, w*rounds+r); err != nil {
					errs <- fmt.Errorf("worker %d round %d: %w", w, r, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := fileHash(t, path); got != want {
		t.Error("database file changed")
	}
}

// oneRound runs the i-th call of the mix and checks its answer.
func oneRound(d env.DB, i int) error {
	ctx := context.Background()
	switch i % 5 {
	case 0, 1:
		x := int64(i%10000 + 1)
		rs, err := d.Query(ctx, fmt.Sprintf("SELECT x, label FROM big WHERE x = %d", x), env.Limits{MaxRows: 5, Reads: true})
		if err != nil {
			return err
		}
		if want := [][]any{{x, fmt.Sprintf("row %d", x)}}; !reflect.DeepEqual(rs.Rows, want) {
			return fmt.Errorf("rows = %v, want %v", rs.Rows, want)
		}
		if want := []string{"big.label", "big.x"}; !reflect.DeepEqual(rs.ReadColumns, want) {
			return fmt.Errorf("read columns = %v, want %v", rs.ReadColumns, want)
		}
	case 2:
		tab, err := d.Describe(ctx, "singer", 2)
		if err != nil {
			return err
		}
		if len(tab.Columns) != 10 || len(tab.Samples.Rows) != 2 {
			return fmt.Errorf("describe = %+v", tab)
		}
	case 3:
		_, err := d.Query(ctx, "WITH n AS (SELECT 1) DELETE FROM big", env.Limits{})
		if !errors.Is(err, env.ErrDenied) {
			return fmt.Errorf("delete: err = %v, want denied", err)
		}
	case 4:
		_, err := d.Query(ctx, "SELECT count(*) FROM big AS a, big AS b, big AS c", env.Limits{Timeout: 20 * time.Millisecond})
		if !errors.Is(err, env.ErrTimeout) {
			return fmt.Errorf("cross join: err = %v, want timeout", err)
		}
	}
	return nil
}

func BenchmarkQuery(b *testing.B) {
	d, _ := openFixture(b)
	ctx := context.Background()
	lim := env.Limits{Timeout: time.Second, MaxRows: 50, MaxCellBytes: 1000, MaxResultBytes: 10000}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := d.Query(ctx, fmt.Sprintf("SELECT x, label FROM big WHERE x = %d", i%10000+1), lim); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQueryRawWrap(b *testing.B) {
	d, _ := openFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Query(ctx, "SELECT name, born FROM singer WHERE singer_id = 2", env.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
