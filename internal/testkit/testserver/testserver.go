// Package testserver runs a real sqlgym episode server for tests: a
// Manager behind an httptest server, on a real socket, stopped when the
// test ends. Tests of the server, the REPL, replay and the stores share
// it, so each does not carry its own wiring and teardown. StartDemo
// builds on Start the stack sqlgym serve runs (the demo on SQLite, a
// trajectory log, its runner and judge), for the tests that need a whole
// server rather than a Manager of their own making.
package testserver

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/jsonrpc"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/schemas"
)

// Options adjust the server beyond the Manager's config.
type Options struct {
	Limits schemas.Limits                // what server.info reports
	Server func(*transport.ServerConfig) // changes the server's config before it starts
}

// Server is a running test server.
type Server struct {
	Manager *episodes.Manager
	Server  *transport.Server
	HTTP    *httptest.Server
	URL     string // the WebSocket endpoint, ws://127.0.0.1:PORT/v1/ws
	stop    func()
}

// Start builds a Manager from cfg and serves it until the test ends (or
// Stop). Resources cfg holds that the test registered for cleanup before
// calling Start are released after the server has stopped.
func Start(tb testing.TB, cfg episodes.Config, o Options) *Server {
	tb.Helper()
	mgr, err := episodes.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	scfg := transport.ServerConfig{Dispatcher: jsonrpc.NewDispatcher(mgr, o.Limits), Registry: mgr.Metrics().Registry}
	if o.Server != nil {
		o.Server(&scfg)
	}
	srv := transport.NewServer(ctx, scfg)
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Listener = transport.WrapListener(hs.Listener) // as Serve does
	hs.Start()
	s := &Server{Manager: mgr, Server: srv, HTTP: hs, URL: "ws" + strings.TrimPrefix(hs.URL, "http") + "/v1/ws"}
	s.stop = sync.OnceFunc(func() {
		hs.Config.Shutdown(ctx)
		srv.Close(ctx)
		hs.Close()
		cancel()
	})
	tb.Cleanup(s.stop)
	return s
}

// Stop shuts the server down: the listener, then every socket with a
// close frame. It is safe to call more than once.
func (s *Server) Stop() { s.stop() }

// Dial connects a client, closed when the test ends.
func (s *Server) Dial(tb testing.TB) *client.Client {
	tb.Helper()
	c, err := client.Dial(context.Background(), s.URL, "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
