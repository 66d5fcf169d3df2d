package mcpserver

import (
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader is the Streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// Handler serves the MCP Streamable HTTP transport: POST, GET and DELETE
// at the path it is mounted on. At most MaxSessions sessions are open at
// once (a new one past them gets HTTP 503), and a session that goes
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
		if r.Method != http.MethodPost || r.Header.Get(sessionHeader) != "" {
			h.ServeHTTP(w, r)
			return
		}
		s.openSession(w, r, h)
	})
}

// openSession serves a POST without a session, which opens one when it
// is an initialize request, within MaxSessions.
func (s *Server) openSession(w http.ResponseWriter, r *http.Request, h http.Handler) {
	if !s.sessions.take() {
		s.metrics.refused.Inc()
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("too many MCP sessions: the server holds at most %d at once (its --max-mcp-sessions); "+
			"end one (HTTP DELETE with its %s) or wait for an idle one to close (--mcp-session-idle %s)",
			s.cfg.MaxSessions, sessionHeader, s.cfg.SessionIdle), http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
	ss := s.find(w.Header().Get(sessionHeader))
	if ss == nil { // not an initialize, or a failed one, or closed already
		s.sessions.give()
		return
	}
	s.metrics.sessions.Inc()
	s.watchers.Add(1)
	go func() {
		defer s.watchers.Done()
		ss.Wait()
		s.endSession(ss, false)
		s.metrics.sessions.Dec()
		s.sessions.give()
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
