package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestOwnershipRefused names, through a guard that admits two tokens
// (two principals), an episode started for alice: bob's calls on it, by
// episode_id, are refused with the answer alice gets for an id that
// never existed, and change nothing; alice, in another session, plays
// it.
func TestOwnershipRefused(t *testing.T) {
	h := start(t, options{tokens: []string{"alice", "bob"}})
	var ep schemas.ResetResult
	structured(t, sdkCall(t, h, "alice", mcpserver.ToolStartEpisode, map[string]any{"task_id": "demo/library-001"}), &ep)
	const never = "ep_000000000000000000000000"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{schemas.ToolSubmit, map[string]any{"sql": goldSQL}},
		{mcpserver.ToolGetReward, map[string]any{}},
		{mcpserver.ToolEndEpisode, map[string]any{}},
	} {
		answers := map[string]string{}
		for who, id := range map[string]string{"bob": ep.EpisodeID, "alice": never} {
			c.args["episode_id"] = id
			res := sdkCall(t, h, who, c.tool, c.args)
			answers[who] = strings.ReplaceAll(text(res), id, "ID")
			if !res.IsError || !strings.HasPrefix(text(res), `no episode "`+id+`" of yours`) {
				t.Errorf("%s by %s on %s: %q, want it refused", c.tool, who, id, text(res))
			}
		}
		if answers["bob"] != answers["alice"] {
			t.Errorf("%s: bob on alice's episode gets\n%s\nand an id that never existed\n%s", c.tool, answers["bob"], answers["alice"])
		}
	}
	if traj, err := h.trajectory(ep.EpisodeID); err != nil || traj.Outcome != "" || len(traj.Steps) != 0 {
		t.Fatalf("after the refused calls: %+v (%v), want it live and unplayed", traj, err)
	}
	var sr schemas.StepResult
	structured(t, sdkCall(t, h, "alice", schemas.ToolSubmit, map[string]any{"sql": goldSQL, "episode_id": ep.EpisodeID}), &sr)
	if sr.Info.Outcome != schemas.OutcomeCorrect {
		t.Errorf("alice's submit: %+v", sr.Info)
	}
}

// TestNativeEpisodeNotDrivenOverMCP names an episode started over the
// native protocol, with the server's token: MCP refuses every call on
// it, and it stays live and unplayed for its own client.
func TestNativeEpisodeNotDrivenOverMCP(t *testing.T) {
	h := start(t, options{token: "sekret"})
	r, err := nativeClient(t, h, "sekret").Reset(context.Background(), schemas.ResetParams{TaskID: "demo/library-001"})
	if err != nil {
		t.Fatal(err)
	}
	cs := h.connect(t, "sekret")
	for _, tool := range []string{schemas.ToolInspectSchema, mcpserver.ToolGetReward, mcpserver.ToolEndEpisode} {
		res := call(t, cs, tool, map[string]any{"episode_id": r.EpisodeID})
		if !res.IsError || !strings.HasPrefix(text(res), `no episode "`+r.EpisodeID+`" of yours`) {
			t.Errorf("%s on a native episode: %q", tool, text(res))
		}
	}
	if traj, err := h.trajectory(r.EpisodeID); err != nil || traj.Outcome != "" || len(traj.Steps) != 0 {
		t.Errorf("the native episode after MCP's calls: %+v (%v)", traj, err)
	}
}

// TestEpisodeOfEndedSessionExpires starts an episode in a session that
// then ends (DELETE) without end_episode: once --mcp-session-idle has
// passed with no call on it, the episode is recorded as no_submit and
// forgotten, so that naming it is refused.
func TestEpisodeOfEndedSessionExpires(t *testing.T) {
	h := start(t, options{sessionIdle: 50 * time.Millisecond})
	var ep schemas.ResetResult
	structured(t, sdkCall(t, h, "", mcpserver.ToolStartEpisode, map[string]any{"task_id": "demo/library-001"}), &ep)
	waitfor.Until(t, "the episode of the ended session to close", func() bool {
		traj, err := h.trajectory(ep.EpisodeID)
		return err == nil && traj.Outcome == schemas.OutcomeNoSubmit
	})
	want := `no episode "` + ep.EpisodeID + `" of yours`
	waitfor.Until(t, "a call naming the expired episode to be refused", func() bool {
		cs, err := h.dial("")
		if err != nil {
			return false
		}
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolGetReward,
			Arguments: map[string]any{"episode_id": ep.EpisodeID}})
		return err == nil && res.IsError && strings.HasPrefix(text(res), want)
	})
	if got := h.scrape(t, "sqlgym_live_episodes"); got != 0 {
		t.Errorf("%v episodes live", got)
	}
}
