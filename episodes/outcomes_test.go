package episodes_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestOutcomes: each way a submission ends gives its outcome and reward.
// The timeouts are short, as in TestWireConformance, which plays the
// same outcomes: the two timeout cases wait them out.
func TestOutcomes(t *testing.T) {
	h := newHarness(t, options{engines: shortTimeouts})
	c := h.dial()
	never := "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r"
	tests := []struct {
		task, sql, want string
		reward          float64
	}{
		{"t/count", "SELECT count(*) FROM items", "correct", 1.0},
		{"t/count", "select COUNT(id) from items", "correct", 1.0},
		{"t/count", "SELECT count(*) FROM items WHERE price > 50", "mismatch", 0.1},
		{"t/count", "SELECT count(*) FROM nowhere", "pred_error", -0.1},
		{"t/count", never, "pred_timeout", -0.1},
		{"t/names", "SELECT name FROM items WHERE category = 'furniture' ORDER BY price", "correct", 1.0},
		{"t/names", "SELECT name FROM items WHERE category = 'furniture' ORDER BY price DESC", "correct", 1.0}, // bird: a set
		{"t/broken", "SELECT 1", "gold_error", 0},
		{"t/slow", "SELECT 1", "gold_timeout", 0},
		{"t/answer", "SELECT name FROM items WHERE price IS NOT NULL ORDER BY price LIMIT 1", "correct", 1.0},
		{"t/answer", "SELECT name FROM items ORDER BY price DESC LIMIT 1", "mismatch", 0.1},
	}
	for _, tt := range tests {
		r := reset(t, c, schemas.ResetParams{TaskID: tt.task})
		s := step(t, c, r.EpisodeID, submitSQL(tt.sql))
		if s.Info.Outcome != tt.want || !s.Terminated || s.Truncated {
			t.Errorf("%s: submit %q: outcome %q terminated %v truncated %v, want %q",
				tt.task, tt.sql, s.Info.Outcome, s.Terminated, s.Truncated, tt.want)
		}
		if !near(s.Reward, tt.reward) || !near(sum(s.Info.RewardComponents), s.Reward) {
			t.Errorf("%s: submit %q: reward %v (components %v), want %v", tt.task, tt.sql, s.Reward, s.Info.RewardComponents, tt.reward)
		}
		if _, err := c.Step(context.Background(), r.EpisodeID, submitSQL(tt.sql)); rpcCode(err) != schemas.CodeEpisodeEnded {
			t.Errorf("%s: step after the end: %v, want code -32002", tt.task, err)
		}
	}
}

func TestTurnsRunOut(t *testing.T) {
	c := newHarness(t, options{}).dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count", MaxTurns: new(2)})
	s := step(t, c, r.EpisodeID, execSQL("SELECT 1"))
	if s.Terminated || s.Truncated || s.Info.TurnsLeft != 1 || !strings.Contains(s.Observation.Content, "1 turn left") {
		t.Fatalf("first step = %+v", s)
	}
	s = step(t, c, r.EpisodeID, execSQL("SELECT 2"))
	if !s.Truncated || s.Terminated || s.Info.Outcome != "no_submit" || !near(s.Reward, -0.2) {
		t.Fatalf("last step = %+v", s)
	}
}

func TestTurnRewards(t *testing.T) {
	c := newHarness(t, options{}).dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count", MaxTurns: new(20)})
	tests := []struct {
		action schemas.Action
		comp   string
		reward float64
	}{
		{execSQL("SELECT 1"), "turn.ok", 0},
		{execSQL("select   1"), "turn.repeat", -0.02},
		{execSQL("SELECT nope"), "turn.tool_error", -0.02},
		{schemas.Action{Tool: "drop_table", Arguments: json.RawMessage(`{}`)}, "turn.format_error", -0.05},
		{schemas.Action{Tool: "execute_sql", Arguments: json.RawMessage(`{"query":"SELECT 1"}`)}, "turn.format_error", -0.05},
		{textAction("I think the answer is 5."), "turn.format_error", -0.05},
		{textAction("no call again"), "turn.format_error", -0.01}, // clipped: turn.cap is 0.2
		{textAction("and none"), "turn.format_error", 0},
	}
	for i, tt := range tests {
		s := step(t, c, r.EpisodeID, tt.action)
		got, ok := s.Info.RewardComponents[tt.comp]
		if !ok || !near(got, tt.reward) || !near(s.Reward, tt.reward) {
			t.Errorf("step %d: components %v reward %v, want %s = %v", i+1, s.Info.RewardComponents, s.Reward, tt.comp, tt.reward)
		}
		if tt.comp != "turn.ok" && tt.comp != "turn.repeat" && s.Info.Error == nil {
			t.Errorf("step %d: no info.error for %s", i+1, tt.comp)
		}
	}
}

// TestIdleEpisodeIsAbandoned: the sweeper Run starts abandons an episode
// once the manager's clock, moved by hand, has passed its idle timeout;
// the sweep ticks on that clock too.
func TestIdleEpisodeIsAbandoned(t *testing.T) {
	const idle = time.Minute // Run sweeps every 6 s of the clock
	clock := clockwork.NewFakeClock()
	h := newHarness(t, options{run: true, cfg: func(c *episodes.Config) { c.IdleTimeout, c.Clock = idle, clock }})
	c := h.dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	h.mgr.Expire(context.Background())
	live(t, h, r.EpisodeID, "before its idle timeout")
	waitTimers(t, clock, 1) // the sweep's ticker
	clock.Advance(idle + time.Nanosecond)
	waitfor.Until(t, "the sweeper to abandon the idle episode", func() bool {
		g, err := c.Episode(context.Background(), r.EpisodeID)
		return err == nil && g.Outcome == schemas.OutcomeAbandoned
	})
	if _, err := c.Step(context.Background(), r.EpisodeID, execSQL("SELECT 1")); rpcCode(err) != schemas.CodeEpisodeEnded {
		t.Errorf("step on an abandoned episode: %v, want -32002", err)
	}
	if !strings.Contains(string(h.recorded()), `"outcome":"abandoned"`) {
		t.Error("abandoned episode not recorded")
	}
}

func textAction(s string) schemas.Action { return schemas.Action{Text: &s} }

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func sum(m map[string]float64) float64 {
	var s float64
	for _, v := range m {
		s += v
	}
	return s
}
