package episodes

import (
	"context"
	"math"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/schemas"
)

// Run abandons episodes idle for longer than the idle timeout, until ctx
// is done. It calls Expire every tenth of the timeout (at least every
// 10 ms, at most every 30 s) by Config.Clock.
func (m *Manager) Run(ctx context.Context) {
	every := min(max(m.cfg.IdleTimeout/10, 10*time.Millisecond), 30*time.Second)
	tick := m.cfg.Clock.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.Chan():
			m.Expire(ctx)
		}
	}
}

// Expire abandons, and records, every live episode that has been idle
// past the idle timeout (by Config.Now, since its last step ended) with
// no step running or waiting. Run calls it periodically; calling it
// directly sweeps once, at a moment of the caller's choosing.
func (m *Manager) Expire(ctx context.Context) {
	cutoff := m.now().Add(-m.cfg.IdleTimeout).UnixNano()
	var idle []*session
	m.mu.Lock()
	for _, s := range m.live {
		if s.lastActive.Load() < cutoff && s.queue.closeIfIdle() {
			idle = append(idle, s)
		}
	}
	m.mu.Unlock()
	for _, s := range idle {
		if t := s.end(schemas.OutcomeAbandoned, m.now()); t != nil {
			m.finish(ctx, s, t) // a failed write is counted and logged there
		}
	}
	m.endOrphans(ctx)
}

// Shutdown abandons every live episode, recording each, so that a server
// that stops loses nothing it had. Steps still running finish first; an
// episode whose steps do not finish before ctx ends is logged as left
// unrecorded, and the others are still recorded.
func (m *Manager) Shutdown(ctx context.Context) {
	for _, s := range m.liveNow() {
		m.abandon(ctx, s)
	}
}

// liveNow lists the live episodes at this moment.
func (m *Manager) liveNow() []*session {
	m.mu.Lock()
	defer m.mu.Unlock()
	all := make([]*session, 0, len(m.live))
	for _, s := range m.live {
		all = append(all, s)
	}
	return all
}

// abandon ends s as abandoned once its queue is free, or logs why not.
func (m *Manager) abandon(ctx context.Context, s *session) {
	st, err := s.queue.enqueue(math.MaxInt)
	if err != nil {
		return // expired or closed meanwhile: recorded by whoever ended it
	}
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := st.wait(wctx); err != nil {
		m.cfg.Logger.Error("episode left unrecorded at shutdown: a step did not finish",
			zap.String("episode", s.id), zap.Error(err))
		return
	}
	defer st.release()
	if t := s.end(schemas.OutcomeAbandoned, m.now()); t != nil {
		m.finish(ctx, s, t) // a failed write is counted and logged there
	}
}
