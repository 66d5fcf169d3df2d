package replay

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

// timed are the components whose value depends on how fast the queries
// ran: a replay checks that they were paid, not how much.
var timed = map[string]bool{reward.ComponentFinalEfficiency: true}

// tolerance bounds the difference between two rewards that are equal:
// both sides add the same components in the same order, so any
// difference is a real one.
const tolerance = 1e-9

// compareMessages compares the prompt the episode was given.
func (res *Result) compareMessages(want, got []schemas.Message) {
	if !slices.Equal(want, got) {
		res.diff(0, "messages", messagesText(want), messagesText(got))
	}
}

// compareStep compares one step's reply with its record, and reports
// whether they matched. Elapsed times are never compared.
func compareStep(res *Result, want *schemas.StepRecord, got *schemas.StepResult) bool {
	before := len(res.Diffs)
	text := func(field, w, g string) {
		if w != g {
			res.diff(want.Turn, field, w, g)
		}
	}
	text("tool", want.Tool, got.Info.Tool)
	text("observation", want.Observation, got.Observation.Content)
	text("error", errorText(want.Error), errorText(got.Info.Error))
	text("outcome", want.Outcome, got.Info.Outcome)
	if want.ResultMeta != nil && got.Info.Result != nil {
		g := got.Info.Result
		text("result", metaText(want.ResultMeta.Columns, want.ResultMeta.RowCount, want.ResultMeta.Truncated),
			metaText(g.Columns, g.RowCount, g.Truncated))
	}
	text("reward_components", componentsText(want.RewardComponents), componentsText(got.Info.RewardComponents))
	compareCalls(res, want, got)
	if w, g := untimed(want.Reward, want.RewardComponents), untimed(got.Reward, got.Info.RewardComponents); !near(w, g) {
		res.diff(want.Turn, "reward", number(want.Reward), number(got.Reward))
	}
	return len(res.Diffs) == before
}

// compareCalls compares the calls of a step that recorded them with the
// replay's tool messages and info.calls: each call's id, tool, tool
// message, error and components.
func compareCalls(res *Result, want *schemas.StepRecord, got *schemas.StepResult) {
	if len(want.Calls) == 0 {
		return
	}
	if len(want.Calls) != len(got.Observations) || len(want.Calls) != len(got.Info.Calls) {
		res.diff(want.Turn, "calls", fmt.Sprintf("%d calls", len(want.Calls)),
			fmt.Sprintf("%d tool messages, %d calls", len(got.Observations), len(got.Info.Calls)))
		return
	}
	for i, w := range want.Calls {
		msg, info := got.Observations[i], got.Info.Calls[i]
		field := fmt.Sprintf("calls[%d].", i)
		for _, f := range [][3]string{
			{"id", w.ID, msg.ToolCallID}, {"tool", w.Tool, info.Tool}, {"observation", w.Observation, msg.Content},
			{"error", errorText(w.Error), errorText(info.Error)},
			{"reward_components", componentsText(w.RewardComponents), componentsText(info.RewardComponents)},
		} {
			if f[1] != f[2] {
				res.diff(want.Turn, field+f[0], f[1], f[2])
			}
		}
	}
}

// compareEnd compares how the episode ended: its outcome, the components
// paid when it was closed between steps, and its rewards.
func (r *Replayer) compareEnd(ctx context.Context, res *Result, rec *trajlog.Record, id string) {
	if !rec.Complete {
		return
	}
	if rec.CloseComponents != nil {
		r.mgr.Close(ctx, id) // closed or abandoned between steps: close the replay the same way
	}
	t, err := r.trajectory(id)
	if err != nil {
		res.unverifiable("end: %v", err)
		return
	}
	if t.EndedAt == nil {
		res.diff(0, "ended", fmt.Sprintf("ended after %d steps", len(rec.Steps)), "still running")
		return
	}
	// Closing is how a replay ends an episode that was abandoned: both pay
	// the no_submit components.
	if rec.Outcome != t.Outcome && !(rec.Outcome == schemas.OutcomeAbandoned && t.Outcome == schemas.OutcomeNoSubmit) {
		res.diff(0, "outcome", rec.Outcome, t.Outcome)
	}
	if w, g := componentsText(rec.CloseComponents), componentsText(t.CloseComponents); w != g {
		res.diff(0, "close_components", w, g)
	}
	if w, g := rec.FinalReward-timedSum(&rec.Trajectory), t.FinalReward-timedSum(t); !near(w, g) {
		res.diff(0, "final_reward", number(rec.FinalReward), number(t.FinalReward))
	}
	if w, g := rec.TotalReward-timedSum(&rec.Trajectory), t.TotalReward-timedSum(t); !near(w, g) {
		res.diff(0, "total_reward", number(rec.TotalReward), number(t.TotalReward))
	}
}

// untimed is a reward without its timed components.
func untimed(r float64, comps map[string]float64) float64 {
	for k, v := range comps {
		if timed[k] {
			r -= v
		}
	}
	return r
}

// timedSum is what an episode was paid in timed components.
func timedSum(t *schemas.Trajectory) float64 {
	sum := 0.0
	for _, st := range t.Steps {
		sum += st.Reward - untimed(st.Reward, st.RewardComponents)
	}
	return sum
}

func near(a, b float64) bool { return math.Abs(a-b) <= tolerance }

// componentsText is the components, sorted by name, timed ones by name only.
func componentsText(comps map[string]float64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(comps)) {
		if timed[k] {
			parts = append(parts, k)
			continue
		}
		parts = append(parts, k+"="+number(comps[k]))
	}
	return strings.Join(parts, " ")
}

func errorText(e *schemas.ToolError) string {
	if e == nil {
		return ""
	}
	return e.Code + ": " + e.Message
}

func metaText(cols []string, rows int, truncated bool) string {
	unit := "rows"
	if rows == 1 {
		unit = "row"
	}
	return fmt.Sprintf("columns %q, %d %s, truncated %v", cols, rows, unit, truncated)
}

// number is a reward as a person reads it: rounded to the replay's
// tolerance, so that the float noise of a sum (-0.15000000000000002)
// does not show, and without a negative zero.
func number(v float64) string {
	v = math.Round(v/tolerance) / (1 / tolerance) // dividing by the exact 1e9 rounds to the nearest decimal
	if v == 0 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func messagesText(ms []schemas.Message) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "[%s] %s\n", m.Role, m.Content)
	}
	return b.String()
}
