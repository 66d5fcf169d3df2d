package openenv

import (
	"context"
	"time"

	"github.com/gorilla/websocket"
)

// A WebSocket session is a fairshare.Item: reclaimed for a client below
// its share, it ends as an idle one would (its episode abandoned and
// recorded), and the socket closes with 1013 so that the client may
// reconnect.

// begin marks a message in hand; false once the session was reclaimed.
func (s *wsSession) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = true
	return !s.reclaimed
}

// idle marks the message answered.
func (s *wsSession) idle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy, s.last = false, s.h.cfg.Now()
}

// LastUsed is when the session last answered a message (or opened).
func (s *wsSession) LastUsed() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Reclaim ends the session unless it is answering a message: its
// episode is abandoned as the Manager's idle sweep would, its room given
// back, the socket closed.
func (s *wsSession) Reclaim() bool {
	s.mu.Lock()
	if s.busy || s.reclaimed {
		s.mu.Unlock()
		return false
	}
	s.reclaimed = true
	ep := s.ep
	s.ep = nil
	s.mu.Unlock()
	if ep != nil && !ep.ended() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.h.base), closeTimeout)
		s.h.engine.abandonIdle(ctx, ep.id)
		cancel()
	}
	s.ticket.Release()
	s.closeFrame(websocket.CloseTryAgainLater, "session reclaimed for a client below its fair share")
	s.conn.Close()
	return true
}
