package transport_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/jsonrpc"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// served is a real server started the way sqlgym serve starts it:
// Server.Serve on a TCP listener of its own.
type served struct {
	mgr  *episodes.Manager
	srv  *transport.Server
	reg  *prometheus.Registry
	addr string // 127.0.0.1:PORT
	http string // http://127.0.0.1:PORT
	ws   string // ws://127.0.0.1:PORT/v1/ws
}

// serve starts a server over a one-table SQLite database with cfg's
// transport settings (Dispatcher and Registry are filled in), stopped
// when the test ends.
func serve(t *testing.T, cfg transport.ServerConfig) *served {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.sqlite")
	if err := sqlite.Build(context.Background(), path, "CREATE TABLE items(id INTEGER, name TEXT); INSERT INTO items VALUES (1,'pen'),(2,'ink');"); err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "t", Dialect: "sqlite", DBs: map[string]string{"shop": path},
		Tasks: []env.Task{{ID: "t/count", Dataset: "t", DBID: "shop", Question: "How many items?", GoldSQL: "SELECT count(*) FROM items"}}}
	if err := ds.Index(); err != nil {
		t.Fatal(err)
	}
	rec, err := filelog.Open(filepath.Join(dir, "data"), filelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := stack.New(stack.EngineConfig{Runner: tools.Config{QueryTimeout: time.Second},
		Judge: judge.Config{PredTimeout: time.Second, GoldTimeout: time.Second}}, rec, ds)
	t.Cleanup(func() { st.Close() }) // after the server has stopped
	mc := st.Config()
	mc.Version = "test"
	mgr, err := episodes.New(mc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dispatcher = jsonrpc.NewDispatcher(mgr, schemas.Limits{})
	cfg.Registry = mgr.Metrics().Registry
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := transport.NewServer(ctx, cfg)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, 5*time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		mgr.Shutdown(sctx)
	})
	addr := ln.Addr().String()
	return &served{mgr: mgr, srv: srv, reg: cfg.Registry, addr: addr, http: "http://" + addr, ws: "ws://" + addr + "/v1/ws"}
}

// dial connects a client, closed when the test ends.
func (s *served) dial(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), s.ws, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// metric is the value of the named metric, summed over its labels; 0
// while it has no sample.
func (s *served) metric(t *testing.T, name string) float64 {
	t.Helper()
	return metricstest.Value(t, s.reg, name)
}

// waitMetric waits until cond holds for the named metric's value.
func (s *served) waitMetric(t *testing.T, name string, cond func(float64) bool) {
	t.Helper()
	metricstest.WaitFor(t, s.reg, name, cond)
}

// rawConn is a TCP connection to the server that the test writes HTTP
// to by hand, closed when the test ends.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func (s *served) rawDial(t *testing.T) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// request writes one HTTP/1.1 request (head holds its request line and
// headers, without the blank line) and reads the response; its body is
// returned whole.
func (c *rawConn) request(t *testing.T, head, body string) (*http.Response, string) {
	t.Helper()
	if _, err := c.Write([]byte(head + "\r\n\r\n" + body)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(waitfor.Timeout))
	defer c.SetReadDeadline(time.Time{})
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatalf("%s: %v", strings.SplitN(head, "\r\n", 2)[0], err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := bufio.NewReader(resp.Body).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return resp, b.String()
}

// closedByServer waits until the server has closed c: a read ends in an
// error (EOF or a reset) other than the deadline. It returns what was
// read before, a last reply perhaps.
func (c *rawConn) closedByServer(t *testing.T) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(waitfor.Timeout))
	var got strings.Builder
	_, err := c.r.WriteTo(&got)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server has not closed the connection from %s within %s (read %q)", c.LocalAddr(), waitfor.Timeout, got.String())
	}
	return got.String()
}
