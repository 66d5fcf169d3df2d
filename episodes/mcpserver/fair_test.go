package mcpserver_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/internal/testkit/peer"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// fairSessions is the --max-mcp-sessions of the fairness tests.
const fairSessions = 8

// dialFrom opens an MCP session from peer n's address.
func (h *harness) dialFrom(n int) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "sqlgym-test", Version: "1"}, nil)
	return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: h.url,
		HTTPClient: peer.HTTPClient(n), DisableStandaloneSSE: true, MaxRetries: -1}, nil)
}

// TestFloodOfSessionsLeavesOthersServed checks issue #32's MCP case: a
// client holding every --max-mcp-sessions slot (all its own while no one
// else asks) does not keep an honest client's initialize at 503: the
// flooder's least recently used idle session is closed for it, its
// episode recorded as an idle session's is (no_submit), and the flooder,
// at its share, is refused saying so.
func TestFloodOfSessionsLeavesOthersServed(t *testing.T) {
	h := start(t, options{maxSessions: fairSessions})
	var first string
	for i := range fairSessions {
		cs, err := h.dialFrom(2)
		if err != nil {
			t.Fatalf("alone, session %d of %d refused: %v", i+1, fairSessions, err)
		}
		t.Cleanup(func() { cs.Close() })
		if i == 0 {
			first = startEpisode(t, cs, "demo/library-001").EpisodeID
		}
	}
	honest, err := h.dialFrom(3)
	if err != nil {
		t.Fatalf("an honest initialize while the flooder holds every session: %v", err)
	}
	defer honest.Close()
	startEpisode(t, honest, "demo/library-001")
	waitfor.Until(t, "the reclaimed session's episode to be recorded", func() bool {
		traj, err := h.trajectory(first)
		return err == nil && traj.Outcome == schemas.OutcomeNoSubmit
	})
	if _, err := h.dialFrom(2); err == nil || !strings.Contains(err.Error(), "503") && !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("the flooder above its share opening another session: %v, want 503", err)
	}
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := peer.HTTPClient(2).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "fair share") {
		t.Fatalf("the flooder's initialize: %d %q, want 503 saying it holds its fair share", resp.StatusCode, body)
	}
}
