package valueindex

import (
	"context"
	"fmt"
	"sync"

	"github.com/sqlgym/sqlgym/env"
)

// Stats are a Store's searches so far: how many ran and were refused,
// how many run and wait now, and the most work one of them did.
type Stats struct {
	Searches    int64 // searches answered from an index
	Waited      int64 // searches that found every slot taken and waited for one
	Busy        int64 // searches refused: their context ended while every slot was taken
	Running     int   // searches running now
	Waiting     int   // searches waiting for a slot now
	PeakRunning int   // most searches that ever ran at once
	PeakWaiting int   // most searches that ever waited at once
	MaxScored   int   // most values one search scored
	MaxCompared int   // most stored words one search's typo pass compared
}

// slots bounds the searches running at once and counts them.
type slots struct {
	free chan struct{} // a token per search that may start
	max  int

	mu    sync.Mutex // guards stats
	stats Stats
}

func newSlots(n int) *slots {
	s := &slots{free: make(chan struct{}, n), max: n}
	for range n {
		s.free <- struct{}{}
	}
	return s
}

// acquire takes a slot, waiting for one within ctx; a search whose ctx
// ends first gets an env.ErrUnavailable *env.QueryError saying the
// searches are busy.
func (s *slots) acquire(ctx context.Context) error {
	select {
	case <-s.free:
		s.update(func(st *Stats) { st.Running++ })
		return nil
	default:
	}
	s.update(func(st *Stats) { st.Waiting++; st.Waited++ })
	select {
	case <-s.free:
		s.update(func(st *Stats) { st.Waiting--; st.Running++ })
		return nil
	case <-ctx.Done():
		s.update(func(st *Stats) { st.Waiting--; st.Busy++ })
		return env.NewQueryError(env.ErrUnavailable, fmt.Sprintf(
			"search_values is busy: %d searches were running, the most the server runs at once (--search-concurrency), for as long as this call could wait; try again in a moment",
			s.max))
	}
}

// release gives back the slot of a search that did w.
func (s *slots) release(w *work) {
	s.update(func(st *Stats) {
		st.Running--
		st.Searches++
		st.MaxScored = max(st.MaxScored, w.scored)
		st.MaxCompared = max(st.MaxCompared, w.compared)
	})
	s.free <- struct{}{}
}

func (s *slots) update(f func(*Stats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.stats)
	s.stats.PeakRunning = max(s.stats.PeakRunning, s.stats.Running)
	s.stats.PeakWaiting = max(s.stats.PeakWaiting, s.stats.Waiting)
}

func (s *slots) snapshot() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}
