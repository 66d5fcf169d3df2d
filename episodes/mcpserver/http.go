package mcpserver

import (
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/base/fairshare"
)

// sessionHeader is the Streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// Handler serves the MCP Streamable HTTP transport: POST, GET and DELETE
// at the path it is mounted on. At most MaxSessions sessions are open at
// once, shared fairly among clients (openSession; a new one refused gets
// HTTP 503), and a session that goes
// SessionIdle without a request is closed; its episode is closed once
// SessionIdle has passed since its last call (endSession).
//
// The SDK's own DNS-rebinding check is off: it refuses any Host that is
// not a loopback name on a loopback connection, which would overrule
// sqlgym serve's --allowed-hosts. The guard of the server that mounts the
// handler (the transport's Mount) checks the same thing with the
// operator's allowances, and the Origin too; with --token, the token.
func (s *Server) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		JSONResponse:               true,
		SessionTimeout:             s.cfg.SessionIdle,
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        s.cfg.MaxBodyBytes,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(fairshare.WithClient(r.Context(), fairshare.ClientOfAddr(r.RemoteAddr)))
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		if id := r.Header.Get(sessionHeader); id != "" {
			s.serveInSession(w, r, h, id)
			return
		}
		s.openSession(w, r, h)
	})
}

// serveInSession serves a POST of an open session, which is not idle
// (not to be reclaimed) meanwhile.
func (s *Server) serveInSession(w http.ResponseWriter, r *http.Request, h http.Handler, id string) {
	if o := s.sessions.byID(id); o != nil {
		o.begin()
		defer func() { o.done(time.Now()) }()
	}
	h.ServeHTTP(w, r)
}

// openSession serves a POST without a session, which opens one when it
// is an initialize request, within MaxSessions shared among clients (the
// address the request comes from): a client below its share at the
// bound is served by reclaiming the largest holder's least recently used
// idle session.
func (s *Server) openSession(w http.ResponseWriter, r *http.Request, h http.Handler) {
	t, err := s.sessions.pool.Acquire(fairshare.ClientOfAddr(r.RemoteAddr))
	if err != nil {
		s.metrics.refused.Inc()
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("too many MCP sessions: the server holds at most %d at once (its --max-mcp-sessions): %v; "+
			"end one (HTTP DELETE with its %s) or wait for an idle one to close (--mcp-session-idle %s)",
			s.cfg.MaxSessions, err, sessionHeader, s.cfg.SessionIdle), http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
	ss := s.find(w.Header().Get(sessionHeader))
	if ss == nil { // not an initialize, or a failed one, or closed already
		t.Release()
		return
	}
	o := &openSession{ss: ss, ticket: t, last: time.Now()}
	s.sessions.track(o)
	s.metrics.sessions.Inc()
	s.watchers.Add(1)
	go func() {
		defer s.watchers.Done()
		ss.Wait()
		s.endSession(ss, o.wasReclaimed())
		s.sessions.untrack(o)
		s.metrics.sessions.Dec()
		t.Release()
	}()
}

// find returns the open session of that id, or nil.
func (s *Server) find(id string) *mcp.ServerSession {
	if id == "" {
		return nil
	}
	for ss := range s.mcp.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// Close closes every open session and waits until they have ended or
// the time given has passed: an HTTP server's shutdown does not end the
// SSE streams sessions hold. Their episodes, and those no session held,
// stay live, for the Manager's shutdown to record as abandoned.
func (s *Server) Close(wait time.Duration) {
	s.closing.Store(true)
	s.owners.stop()
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	done := make(chan struct{})
	go func() { s.watchers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
	}
}
