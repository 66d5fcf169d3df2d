package repl

import (
	"context"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// reconnectTimeout bounds one attempt to reach a server that went away.
const reconnectTimeout = 10 * time.Second

// reconnect dials the server again when the connection was lost, and
// says whether the REPL has a connection. An episode live before keeps
// its place: a server that only dropped the socket still has it, one
// that restarted says it no longer does at the next step.
func (s *session) reconnect(ctx context.Context) bool {
	if !s.lost {
		return true
	}
	dctx, cancel := context.WithTimeout(ctx, reconnectTimeout)
	defer cancel()
	c, err := client.Dial(dctx, s.url, s.token)
	var info *schemas.ServerInfo
	if err == nil {
		if info, err = c.Info(dctx); err != nil {
			c.Close()
		}
	}
	if err != nil {
		s.out.errorf("the server still does not answer (%v): nothing was sent; the next command tries again, .quit leaves", err)
		return false
	}
	s.c.Close()
	s.c, s.info, s.lost = c, info, false
	s.out.linef("connected to %s again", s.url)
	return true
}
