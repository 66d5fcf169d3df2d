package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// scrape reads a metric without labels from the server's /metrics.
func (h *harness) scrape(t testing.TB, name string) float64 {
	t.Helper()
	return metricstest.Scrape(t, h.demo.HTTP.URL+"/metrics", name)
}

// TestSessionBound opens --max-mcp-sessions sessions: one more is refused
// with 503, saying which flag bounds it, and counted; once a session
// ends, a new one opens.
func TestSessionBound(t *testing.T) {
	h := start(t, options{maxSessions: 2})
	a := h.connect(t, "")
	h.connect(t, "")
	code, body := h.post(t, nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "--max-mcp-sessions") {
		t.Fatalf("a third session: %d %q", code, body)
	}
	if got := h.scrape(t, "sqlgym_mcp_sessions_refused_total"); got != 1 {
		t.Errorf("refused sessions %v, want 1", got)
	}
	if _, err := h.dial(""); err == nil || !strings.Contains(err.Error(), "503") && !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("a third session through the SDK's client: %v", err)
	}
	if got := h.scrape(t, "sqlgym_mcp_sessions"); got != 2 {
		t.Errorf("open sessions %v, want 2", got)
	}
	startEpisode(t, a, "demo/library-001")
	a.Close() // DELETE: the session ends and leaves the count
	waitfor.Until(t, "the closed session to leave the count", func() bool { return h.scrape(t, "sqlgym_mcp_sessions") == 1 })
	h.connect(t, "")
}

// TestIdleSessionCloses leaves a session with a live episode idle past
// --mcp-session-idle: the session closes, its episode is recorded as
// no_submit, and the session is gone.
func TestIdleSessionCloses(t *testing.T) {
	h := start(t, options{sessionIdle: 50 * time.Millisecond})
	cs := h.connect(t, "")
	ep := startEpisode(t, cs, "demo/library-001")
	waitfor.Until(t, "the idle session's episode to end", func() bool {
		traj, err := h.trajectory(ep.EpisodeID)
		return err == nil && traj.Outcome == schemas.OutcomeNoSubmit
	})
	waitfor.Until(t, "the idle session to leave the count", func() bool { return h.scrape(t, "sqlgym_mcp_sessions") == 0 })
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolGetReward}); err == nil {
		t.Error("a call on the expired session was answered")
	}
}

// TestConcurrentSessions plays 64 sessions at once, each a whole
// episode: every one ends correct, recorded with origin=mcp.
func TestConcurrentSessions(t *testing.T) {
	h := start(t, options{})
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, err := h.dial("")
			if err != nil {
				errs <- err.Error()
				return
			}
			defer cs.Close()
			if msg := playRight(cs); msg != "" {
				errs <- strconv.Itoa(i) + ": " + msg
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	waitfor.Until(t, "every session to end", func() bool { return h.scrape(t, "sqlgym_mcp_sessions") == 0 })
	if got := h.scrape(t, "sqlgym_live_episodes"); got != 0 {
		t.Errorf("%v episodes still live", got)
	}
}

// playRight plays rightPlay in a session and says what went wrong, or "".
func playRight(cs *mcp.ClientSession) string {
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolStartEpisode, Arguments: map[string]any{"task_id": rightPlay.task}})
	if err != nil || res.IsError {
		return fmt.Sprintf("start_episode: %v %s", err, text(res))
	}
	for _, a := range rightPlay.calls {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: a.Tool, Arguments: a.Arguments}); err != nil {
			return fmt.Sprintf("%s: %v", a.Tool, err)
		}
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolGetReward})
	if err != nil {
		return err.Error()
	}
	var r mcpserver.Reward
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &r); err != nil || r.Outcome != schemas.OutcomeCorrect {
		return fmt.Sprintf("reward %s: %v", b, err)
	}
	return ""
}

// TestShutdownAbandonsEpisodes stops the server with an MCP session's
// episode live: the session ends, and the episode is recorded as
// abandoned, as a native one is at shutdown.
func TestShutdownAbandonsEpisodes(t *testing.T) {
	h := start(t, options{})
	cs := h.connect(t, "")
	ep := startEpisode(t, cs, "demo/library-001")
	h.mcp.Close(time.Minute)
	if got := h.scrape(t, "sqlgym_mcp_sessions"); got != 0 {
		t.Errorf("%v sessions open after Close", got)
	}
	if traj, err := h.trajectory(ep.EpisodeID); err != nil || traj.Outcome != "" {
		t.Fatalf("the episode ended with its session: %v %v", traj, err)
	}
	h.demo.Stop()
	h.demo.Manager.Shutdown(context.Background())
	if traj, err := h.trajectory(ep.EpisodeID); err != nil || traj.Outcome != schemas.OutcomeAbandoned {
		t.Errorf("after shutdown: %+v %v", traj, err)
	}
}

// TestBodyBound sends a request larger than --max-frame-bytes: 413, and
// no session is opened.
func TestBodyBound(t *testing.T) {
	h := start(t, options{bodyBytes: 4096})
	big := strings.Replace(initialize, `"name":"raw"`, `"name":"`+strings.Repeat("x", 5000)+`"`, 1)
	if code, body := h.postBody(t, big, nil); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 5 KB body under a 4 KiB bound: %d %q", code, body)
	}
	if got := h.scrape(t, "sqlgym_mcp_sessions"); got != 0 {
		t.Errorf("%v sessions open", got)
	}
	if code, _ := h.post(t, nil); code != http.StatusOK {
		t.Errorf("a small initialize: %d", code)
	}
}
