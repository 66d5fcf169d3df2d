package mcpserver_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
)

// initialize is an MCP initialize request, as a client's first POST.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends an initialize to /mcp with the given headers (Host sets the
// request's Host) and returns the status and body.
func (h *harness) post(t *testing.T, headers map[string]string) (int, string) {
	t.Helper()
	return h.postBody(t, initialize, headers)
}

// postBody sends body to /mcp as a client's POST.
func (h *harness) postBody(t *testing.T, body string, headers map[string]string) (int, string) {
	t.Helper()
	resp, b := h.send(t, body, headers)
	return resp.StatusCode, string(b)
}

// send POSTs body to /mcp as a client does, with the given headers (Host
// sets the request's Host), and returns the response and its body.
func (h *harness) send(t *testing.T, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", h.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestTokenGuardsMCP shows /mcp needs the server's token, as /v1/ws does.
func TestTokenGuardsMCP(t *testing.T) {
	h := start(t, options{token: "sekret"})
	if code, body := h.post(t, nil); code != http.StatusUnauthorized || !strings.Contains(body, "Bearer") {
		t.Errorf("no token: %d %q", code, body)
	}
	if _, err := h.dial("wrong"); err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("a wrong token connected: %v", err)
	}
	cs := h.connect(t, "sekret")
	if res := call(t, cs, mcpserver.ToolListTasks, nil); res.IsError {
		t.Errorf("list_tasks with the token: %s", text(res))
	}
}

// TestOriginAndHostGuardMCP shows, without a token, that a page of
// another origin and a request addressed by a rebound name are refused
// with the server's own reasons, and that a name given to
// --allowed-hosts is served although the connection is a loopback one:
// the server's guard decides, not the SDK's stricter Host check.
func TestOriginAndHostGuardMCP(t *testing.T) {
	h := start(t, options{allowedHosts: []string{"gpu-box.lan"}})
	if code, body := h.post(t, map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden || !strings.Contains(body, "--allowed-origins") {
		t.Errorf("a foreign origin: %d %q", code, body)
	}
	if code, body := h.post(t, map[string]string{"Host": "rebind.example:80"}); code != http.StatusForbidden || !strings.Contains(body, "--allowed-hosts") {
		t.Errorf("a rebound name: %d %q", code, body)
	}
	code, body := h.post(t, map[string]string{"Host": "gpu-box.lan:" + strconv.Itoa(8765)})
	if code != http.StatusOK || !strings.Contains(body, `"serverInfo"`) {
		t.Errorf("an allowed host: %d %q", code, body)
	}
	code, body = h.post(t, map[string]string{"Origin": "http://localhost:3000"})
	if code != http.StatusOK || !strings.Contains(body, `"serverInfo"`) {
		t.Errorf("a loopback page: %d %q", code, body)
	}
}
