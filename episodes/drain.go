package episodes

import (
	"context"
	"time"
)

// Drain makes the Manager refuse every reset from now on with an error of
// kind Draining, on every surface (each starts its episodes through
// Reset); live episodes keep taking steps, and end as they would have
// (submitted, out of turns, closed, idle) or at Shutdown. A server calls
// it when it is told to stop, so that a load balancer sends new episodes
// elsewhere while its clients finish theirs. It cannot be undone.
func (m *Manager) Drain() { m.draining.Store(true) }

// Draining reports whether Drain was called.
func (m *Manager) Draining() bool { return m.draining.Load() }

// LiveEpisodes is how many episodes have not ended.
func (m *Manager) LiveEpisodes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

// WaitNoneLive waits until no episode is live, looking every poll (on
// Config.Clock), or until ctx ends; it reports whether none is (a
// draining server's wait for its live episodes to end within its grace).
func (m *Manager) WaitNoneLive(ctx context.Context, poll time.Duration) bool {
	tick := m.cfg.Clock.NewTicker(poll)
	defer tick.Stop()
	for m.LiveEpisodes() > 0 {
		select {
		case <-ctx.Done():
			return false
		case <-tick.Chan():
		}
	}
	return true
}

// DrainError is the error a reset gets once Drain was called (kind
// Draining), or nil: a surface that would undo something before its
// reset (end the episode a session holds) asks first.
func (m *Manager) DrainError() error { return m.refuseDraining() }

// refuseDraining is the error of a reset once Drain was called, or nil.
func (m *Manager) refuseDraining() error {
	if !m.draining.Load() {
		return nil
	}
	return stateErrorf(Draining, "the server is shutting down and starts no new episode; "+
		"its live episodes can still be stepped until it stops: start this one on another replica")
}
