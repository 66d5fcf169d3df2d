package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// hostileQuery is 125 made-up words, none of them stored: each goes
// through the typo pass.
func hostileQuery() string {
	ws := make([]string, 125)
	for i := range ws {
		ws[i] = fmt.Sprintf("%cq%dzx", 'a'+i%26, i)
	}
	return strings.Join(ws, " ")
}

// TestSearchesCannotStarveSQL: while more hostile searches than their
// bound (--search-concurrency, here 1) run in a loop, at most that many
// run at once, the rest wait, and an honest execute_sql on the same
// database completes. The reply of a long query says what was cut.
func TestSearchesCannotStarveSQL(t *testing.T) {
	r, target := demoTarget(t, valueindex.Config{MaxSearches: 1})
	store := r.cfg.Values.(*valueindex.Store)
	ctx := context.Background()
	first, err := r.SearchValues(ctx, target, &SearchValuesArgs{Query: hostileQuery()}) // builds the index
	if err != nil || first.Error != nil {
		t.Fatalf("%v %+v", err, first.Error)
	}
	if !strings.Contains(first.Content, "only the first 16 words of the query were searched") {
		t.Errorf("the reply does not say the query was cut:\n%s", first.Content)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				r.SearchValues(ctx, target, &SearchValuesArgs{Query: hostileQuery()})
			}
		})
	}
	waitfor.Until(t, "the searches to fill their bound and queue", func() bool {
		st := store.Stats()
		return st.Running == 1 && st.Waiting >= 3
	})
	res, err := r.Execute(ctx, target.DB, &ExecuteSQLArgs{SQL: "SELECT count(*) FROM members WHERE city = 'Leeds'"})
	close(stop)
	wg.Wait()
	if err != nil || res.Error != nil {
		t.Errorf("the honest step failed while searches were saturated: %v %+v", err, res.Error)
	}
	if st := store.Stats(); st.PeakRunning != 1 || st.PeakWaiting < 3 {
		t.Errorf("stats %+v: want at most 1 search running at once, others waiting", st)
	}
}
