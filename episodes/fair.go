package episodes

import (
	"context"
	"time"

	"github.com/sqlgym/sqlgym/base/fairshare"
	"github.com/sqlgym/sqlgym/schemas"
)

// The live episodes (--max-episodes) are shared among clients by
// base/fairshare: a client is whatever its surface names in the
// reset's context (fairshare.WithClient; the native surface names the
// connection's address), and an in-process caller is one anonymous
// client. A client below its share when the bound is reached is served
// by reclaiming the least recently used idle episode of the client that
// holds the most, ended as the idle sweep ends it (abandoned, recorded).

// admit makes s live for the client ctx names, reclaiming an idle
// episode of the largest holder when the server is full and that client
// holds less than its share; otherwise it refuses with Capacity.
func (m *Manager) admit(ctx context.Context, s *session) error {
	t, err := m.shares.Acquire(fairshare.ClientOf(ctx))
	if err != nil {
		return stateErrorf(Capacity, "%d live episodes (the server's --max-episodes): %v; close some or retry later",
			m.cfg.MaxEpisodes, err)
	}
	s.share = t
	m.mu.Lock()
	m.live[s.id] = s
	m.mu.Unlock()
	t.Hold(reclaimable{m, s})
	return nil
}

// reclaimable is a live episode as a fairshare.Item.
type reclaimable struct {
	m *Manager
	s *session
}

// LastUsed is when the episode's last step ended (or it began).
func (r reclaimable) LastUsed() time.Time { return time.Unix(0, r.s.lastActive.Load()) }

// Reclaim abandons the episode if no step of it runs or waits.
func (r reclaimable) Reclaim() bool { return r.m.abandonIdle(context.Background(), r.s) }

// AbandonIdle ends the live episode of that id as the idle sweep does
// (abandoned, recorded) if no step of it runs or waits, and reports
// whether the episode is no longer live: ended now, or before. A surface
// reclaiming a session for a client below its share calls it.
func (m *Manager) AbandonIdle(ctx context.Context, id string) bool {
	m.mu.Lock()
	s := m.live[id]
	m.mu.Unlock()
	return s == nil || m.abandonIdle(ctx, s)
}

// abandonIdle ends s as abandoned if its queue is idle.
func (m *Manager) abandonIdle(ctx context.Context, s *session) bool {
	if !s.queue.closeIfIdle() {
		return false
	}
	if t := s.end(schemas.OutcomeAbandoned, m.now()); t != nil {
		m.finish(ctx, s, t) // a failed write is counted and logged there
	}
	s.share.Release()
	return true
}

// Reclaimed counts the live episodes abandoned to make room for a
// client below its share.
func (m *Manager) Reclaimed() int64 { return m.shares.Reclaimed() }
