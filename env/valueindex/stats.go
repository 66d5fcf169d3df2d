package valueindex

import (
	"context"
	"fmt"
	"sync"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
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

// slots bounds the searches running at once and counts them. An episode
// group (env.Holder) already running a search may not take the last
// quarter of them, so one group's searches leave room for every other
// episode's first (sandbox.Admission, the rule the engines share).
type slots struct {
	adm *sandbox.Admission
	max int

	mu    sync.Mutex // guards stats
	stats Stats
}

// searchSayings name the bound in a waiting search's error.
var searchSayings = sandbox.Sayings{Server: "%d searches were running", DB: "%d searches were running"}

func newSlots(n int) *slots {
	return &slots{max: n, adm: sandbox.NewAdmission(sandbox.Shares{Max: n, PerDB: n,
		HolderReserve: sandbox.QuarterOf(n)}, searchSayings)}
}

// acquire takes a slot, waiting for one within ctx; a search whose ctx
// ends first gets an env.ErrUnavailable *env.QueryError saying why the
// searches were busy. A nil error must be followed by release with the
// same ctx.
func (s *slots) acquire(ctx context.Context) error {
	holder := env.Holder(ctx)
	if s.adm.TryAcquire("", holder) {
		s.update(func(st *Stats) { st.Running++ })
		return nil
	}
	s.update(func(st *Stats) { st.Waiting++; st.Waited++ })
	if err := s.adm.Acquire(ctx, "", holder); err != nil {
		s.update(func(st *Stats) { st.Waiting--; st.Busy++ })
		return env.NewQueryError(env.ErrUnavailable, fmt.Sprintf(
			"search_values is busy: %s (at most --search-concurrency %d at once, the last quarter kept for episode groups running none) for as long as this call could wait; try again in a moment",
			sandbox.WhyWaited(err), s.max))
	}
	s.update(func(st *Stats) { st.Waiting--; st.Running++ })
	return nil
}

// release gives back the slot of a search that did w, taken with ctx.
func (s *slots) release(ctx context.Context, w *work) {
	s.update(func(st *Stats) {
		st.Running--
		st.Searches++
		st.MaxScored = max(st.MaxScored, w.scored)
		st.MaxCompared = max(st.MaxCompared, w.compared)
	})
	s.adm.Release("", env.Holder(ctx))
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
