package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
)

// TestStartEpisodeWhileDraining: on a draining server start_episode is a
// tool error saying the server is shutting down, and the session's
// episode is not closed to make way: its tools still run.
func TestStartEpisodeWhileDraining(t *testing.T) {
	h := start(t, options{})
	cs := h.connect(t, "")
	ep := startEpisode(t, cs, "demo/library-001")
	h.demo.Manager.Drain()
	res := call(t, cs, mcpserver.ToolStartEpisode, map[string]any{"task_id": "demo/library-002"})
	if !res.IsError || !strings.Contains(text(res), "shutting down") {
		t.Fatalf("start_episode while draining: error %v, %q", res.IsError, text(res))
	}
	if res := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT 1"}); res.IsError {
		t.Fatalf("the session's episode after a refused start: %s", text(res))
	}
	if tr, err := h.trajectory(ep.EpisodeID); err != nil || tr.Outcome != "" {
		t.Fatalf("the session's episode %s: %+v, %v", ep.EpisodeID, tr, err)
	}
}
