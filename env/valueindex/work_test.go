package valueindex

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// unboundedWork is what answering ws over s's one index would cost with
// no bounds: the stored words a typo pass over every word of a near
// length compares, and the values that hold any of the query's terms.
func unboundedWork(t *testing.T, s *Store, ws []string) (compared, scored int64) {
	t.Helper()
	var ix *index
	for _, f := range s.dbs {
		ix = f.ix
	}
	gs, _ := grams(ws, len(ws)*64)
	for _, w := range ws {
		n := utf8.RuneCountInString(w)
		var c, d int64
		if err := ix.db.QueryRow("SELECT count(*) FROM vocab WHERE len BETWEEN ? AND ?", n-2, n+2).Scan(&c); err != nil {
			t.Fatal(err)
		}
		_ = ix.db.QueryRow("SELECT docs FROM vocab WHERE len = ? AND word = ?", n, w).Scan(&d)
		compared, scored = compared+c, scored+d
	}
	for _, g := range gs {
		var d int64
		_ = ix.db.QueryRow("SELECT docs FROM gram_docs WHERE gram = ?", g).Scan(&d)
		scored += d
	}
	return compared, scored
}

// TestSearchWorkIsBounded: a query of 125 words, common and random, the
// hostile search of a large vocabulary, compares at most maxComparisons
// stored words and scores at most maxScored values, on a small index and
// on one twenty times larger, where the same query without bounds would
// do many times that; the reply says what was cut.
func TestSearchWorkIsBounded(t *testing.T) {
	query := commonQuery(7, 125)
	for _, n := range []int{2_000, 40_000} {
		s, ds, db := vocabStore(t, n, Config{})
		m, err := s.SearchValues(context.Background(), ds, "big", db, env.ValueQuery{Query: query, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		if st.MaxCompared > maxComparisons || st.MaxScored > maxScored {
			t.Errorf("%d values: compared %d stored words and scored %d values, want at most %d and %d",
				n, st.MaxCompared, st.MaxScored, maxComparisons, maxScored)
		}
		if !strings.Contains(strings.Join(m.Cut, "; "), "only the first 16 words of the query were searched") {
			t.Errorf("%d values: cut %q, want it to say the query's words were cut to 16", n, m.Cut)
		}
		all, _ := words(query, 1000)
		compared, scored := unboundedWork(t, s, all)
		t.Logf("%d values: compared %d, scored %d; unbounded: %d and %d; cut: %q", n, st.MaxCompared, st.MaxScored, compared, scored, m.Cut)
		if n < 40_000 {
			continue
		}
		if compared < 10*maxComparisons || scored < 2*maxScored {
			t.Errorf("unbounded work %d comparisons and %d values: the test's vocabulary is too small to show the bounds", compared, scored)
		}
		if cut := strings.Join(m.Cut, "; "); !strings.Contains(cut, "are in too many values to score them all") {
			t.Errorf("%d values: cut %q, want it to name the common words not scored in full", n, m.Cut)
		}
	}
}

// TestBusySearchesWaitThenFail: with every search slot taken, a search
// waits for one; when its context ends first it gets an unavailable
// error naming the bound, and the counters show it.
func TestBusySearchesWaitThenFail(t *testing.T) {
	ds, cat := demoDataset(t)
	s := newStore(t, t.TempDir(), nil)
	search(t, s, ds, cat, "library", env.ValueQuery{Query: "Leeds", Limit: 5}) // builds the index
	// Take every slot.
	for range s.run.max {
		s.run.adm.TryAcquire("", "")
	}
	db, err := cat.DB(context.Background(), ds, "library")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.SearchValues(ctx, ds, "library", db, env.ValueQuery{Query: "Leeds", Limit: 5})
		done <- err
	}()
	waitfor.Until(t, "the search to wait for a slot", func() bool { return s.Stats().Waiting == 1 })
	cancel()
	err = received(t, "the waiting search to give up", done)
	var qe *env.QueryError
	if !errors.As(err, &qe) || qe.Kind != env.ErrUnavailable || !strings.Contains(qe.Message, "search_values is busy") ||
		!strings.Contains(qe.Message, "--search-concurrency") {
		t.Errorf("err = %v, want unavailable saying search_values is busy (--search-concurrency)", err)
	}
	if st := s.Stats(); st.Busy != 1 || st.Waiting != 0 {
		t.Errorf("stats %+v, want one busy search and none waiting", st)
	}
	for range s.run.max {
		s.run.adm.Release("", "")
	}
	search(t, s, ds, cat, "library", env.ValueQuery{Query: "Leeds", Limit: 5})
}

// TestAGroupsSearchesLeaveRoomForOthers: an episode group holding all
// the searches it may (every slot but the last quarter) waits for a
// slot, while another episode's search runs at once.
func TestAGroupsSearchesLeaveRoomForOthers(t *testing.T) {
	ds, cat := demoDataset(t)
	s, err := New(Config{Dir: t.TempDir(), MaxSearches: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	search(t, s, ds, cat, "library", env.ValueQuery{Query: "Leeds", Limit: 5}) // builds the index
	group := env.WithHolder(context.Background(), "group:7")
	held := 0
	for s.run.adm.TryAcquire("", "group:7") {
		held++
	}
	if held != 3 {
		t.Fatalf("a group took %d of 4 search slots, want 3", held)
	}
	db, err := cat.DB(context.Background(), ds, "library")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(group)
	cancel()
	if err := s.run.acquire(ctx); err == nil || !strings.Contains(err.Error(), "kept for other episodes") {
		t.Errorf("the group's next search: %v, want busy naming the share kept for others", err)
	}
	other := env.WithHolder(context.Background(), "episode:e")
	if _, err := s.SearchValues(other, ds, "library", db, env.ValueQuery{Query: "Leeds", Limit: 5}); err != nil {
		t.Errorf("another episode's search beside the group's: %v", err)
	}
	for range held {
		s.run.adm.Release("", "group:7")
	}
}
