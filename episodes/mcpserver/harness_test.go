package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// options shape a harness.
type options struct {
	token        string
	maxSessions  int
	sessionIdle  time.Duration
	allowedHosts []string
	bodyBytes    int64 // the largest request body (the server's --max-frame-bytes)
	// tokens are the bearer tokens a guard in front of /mcp admits, each
	// a principal of its own, as a proxy in front of the handler could;
	// the server then has no token of its own.
	tokens []string
}

// harness is sqlgym's server on the demo, every tool offered
// (search_values reading a real value index), with the MCP server
// mounted at /mcp as sqlgym serve mounts it.
type harness struct {
	demo *testserver.Demo
	mcp  *mcpserver.Server
	url  string // http://127.0.0.1:PORT/mcp
}

func start(t testing.TB, o options) *harness {
	t.Helper()
	var handler atomic.Pointer[http.Handler] // the MCP server needs the Manager, which the demo server makes
	late := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) })
	d := testserver.StartDemo(t, testserver.DemoOptions{
		Engines: func(ec *stack.EngineConfig, dir string) {
			store, err := valueindex.New(valueindex.Config{Dir: filepath.Join(dir, "value-index")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() }) // after the stack has closed
			ec.Runner.QueryTimeout, ec.Runner.Values = 10*time.Second, store
		},
		Config: func(c *episodes.Config, _ string) { c.Tools = tools.AllSet() },
		Options: testserver.Options{Server: func(c *transport.ServerConfig) {
			c.Token, c.AllowedHosts = o.token, o.allowedHosts
			c.Mounts = append(c.Mounts, transport.Mount{Prefix: "/mcp", Handler: admit(o.tokens, late)})
		}},
	})
	srv := mcpserver.New(mcpserver.Config{Manager: d.Manager, Version: "test", MaxSessions: o.maxSessions,
		SessionIdle: o.sessionIdle, MaxBodyBytes: o.bodyBytes, Registry: d.Manager.Metrics().Registry})
	h := srv.Handler()
	handler.Store(&h)
	t.Cleanup(func() { srv.Close(time.Minute) }) // before the demo server stops (cleanups run last first)
	return &harness{demo: d, mcp: srv, url: d.HTTP.URL + "/mcp"}
}

// bearer sends a token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session over Streamable HTTP with the Go SDK's
// client, closed when the test ends.
func (h *harness) connect(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := h.dial(token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func (h *harness) dial(token string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "sqlgym-test", Version: "1"}, nil)
	return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: h.url,
		HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
}

// call calls a tool and fails the test on a protocol error.
func call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// text is a result's text content.
func text(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}

// structured decodes a result's structured content into v.
func structured(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// startEpisode starts an episode on a task in the session.
func startEpisode(t testing.TB, cs *mcp.ClientSession, taskID string) *schemas.ResetResult {
	t.Helper()
	res := call(t, cs, mcpserver.ToolStartEpisode, map[string]any{"task_id": taskID})
	if res.IsError {
		t.Fatalf("start_episode: %s", text(res))
	}
	var r schemas.ResetResult
	structured(t, res, &r)
	return &r
}

// trajectory is the episode's trajectory as the Manager holds it.
func (h *harness) trajectory(id string) (*schemas.Trajectory, error) {
	snap, err := h.demo.Manager.Get(id)
	if err != nil {
		return nil, err
	}
	return snap.Trajectory()
}
