package openenv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/openenv"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// surface is a real sqlgym server over the demo with the OpenEnv surface
// mounted at /openenv, as sqlgym serve mounts it.
type surface struct {
	*testserver.Demo
	handler *openenv.Handler
	base    string // http://127.0.0.1:PORT/openenv: an OpenEnv client's base_url
	ws      string // ws://127.0.0.1:PORT/openenv/ws
	stop    func() // ends the handler's context, as a shutdown does
}

// start serves the demo with the surface; oc and sc adjust the surface's
// and the server's configs.
func start(t testing.TB, oc func(*openenv.Config), sc func(*transport.ServerConfig)) *surface {
	t.Helper()
	return startWith(t, nil, oc, sc)
}

// startWith is start with mc adjusting the Manager's config too.
func startWith(t testing.TB, mc func(*episodes.Config, string), oc func(*openenv.Config), sc func(*transport.ServerConfig)) *surface {
	t.Helper()
	s := &surface{}
	ready := make(chan struct{})
	mount := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-ready; s.handler.ServeHTTP(w, r) })
	ctx, cancel := context.WithCancel(context.Background())
	s.Demo = testserver.StartDemo(t, testserver.DemoOptions{Config: mc, Options: testserver.Options{Server: func(c *transport.ServerConfig) {
		c.Mounts = append(c.Mounts, transport.Mount{Prefix: "/openenv", Handler: mount})
		if sc != nil {
			sc(c)
		}
	}}})
	t.Cleanup(cancel) // before the server stops: sockets close, and their episodes are recorded
	cfg := openenv.Config{Manager: s.Manager, Prefix: "/openenv"}
	if oc != nil {
		oc(&cfg)
	}
	s.handler, s.stop = openenv.New(ctx, cfg), cancel
	close(ready)
	s.base = s.HTTP.URL + "/openenv"
	s.ws = "ws" + strings.TrimPrefix(s.base, "http") + "/ws"
	return s
}

// envClient speaks to /ws as OpenEnv's EnvClient does
// (src/openenv/core/env_client.py): one JSON text message, then one reply.
type envClient struct {
	t    testing.TB
	conn *websocket.Conn
}

// dial connects as EnvClient.connect does (base_url + "/ws").
func (s *surface) dial(t testing.TB, header http.Header) *envClient {
	t.Helper()
	conn, resp, err := websocket.DefaultDialer.Dial(s.ws, header)
	if err != nil {
		t.Fatalf("dial %s: %v (%v)", s.ws, err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	return &envClient{t: t, conn: conn}
}

// call sends a message and returns the reply: env_client.py's
// _send_and_receive, without its raise on an error reply.
func (c *envClient) call(msg any) map[string]any {
	c.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.raw(b)
}

// raw sends one text frame and reads the reply.
func (c *envClient) raw(frame []byte) map[string]any {
	c.t.Helper()
	if err := c.conn.WriteMessage(websocket.TextMessage, frame); err != nil {
		c.t.Fatal(err)
	}
	c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var reply map[string]any
	if err := c.conn.ReadJSON(&reply); err != nil {
		c.t.Fatalf("reading the reply to %.200s: %v", frame, err)
	}
	return reply
}

// disconnect is EnvClient.disconnect: {"type": "close"}, then the socket
// closes.
func (c *envClient) disconnect() {
	c.conn.WriteJSON(map[string]string{"type": "close"})
	c.conn.Close()
}

// data is a reply's data, failing the test on an error reply.
func data(t testing.TB, reply map[string]any, typ string) map[string]any {
	t.Helper()
	if reply["type"] != typ {
		t.Fatalf("reply type %v, want %s: %v", reply["type"], typ, reply)
	}
	d, _ := reply["data"].(map[string]any)
	return d
}

// reset, callTool, listTools and message are EnvClient.reset(**kwargs) and
// MCPToolClient's _step_payload (src/openenv/core/mcp_client.py) of
// CallToolAction and ListToolsAction, and the message action.
func reset(kw map[string]any) map[string]any { return map[string]any{"type": "reset", "data": kw} }

func callTool(name string, args map[string]any) map[string]any {
	return map[string]any{"type": "step", "data": map[string]any{"type": "call_tool", "tool_name": name, "arguments": args}}
}

func listTools() map[string]any {
	return map[string]any{"type": "step", "data": map[string]any{"type": "list_tools"}}
}

// post sends a JSON body and decodes the JSON reply.
func post(t testing.TB, url string, body any, header http.Header) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	return do(t, req)
}

// get fetches a JSON reply.
func get(t testing.TB, url string, header http.Header) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	return do(t, req)
}

func do(t testing.TB, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s %s: status %d, body %.300q is not a JSON object", req.Method, req.URL, resp.StatusCode, b)
	}
	return resp.StatusCode, v
}
