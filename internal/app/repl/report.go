package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// fetch gets the current episode's trajectory from the server.
func (s *session) fetch(ctx context.Context) *schemas.Trajectory {
	if s.ep == nil {
		s.out.errorf("no episode: .reset starts one")
		return nil
	}
	t, err := s.c.Episode(ctx, s.ep.reset.EpisodeID)
	if err != nil {
		s.callFailed(err)
		return nil
	}
	return t
}

// trajectory prints the steps of the current episode, as episode.get
// returns them.
func (s *session) trajectory(ctx context.Context) {
	t := s.fetch(ctx)
	if t == nil {
		return
	}
	state := "live"
	if t.Outcome != "" {
		state = "ended: " + t.Outcome
	}
	s.out.linef("episode %s: %s, %s format, %d of %s taken, %s, total reward %s",
		t.EpisodeID, t.Task.TaskID, t.ActionFormat, len(t.Steps), plural(t.MaxTurns, "turn"), state, num(t.TotalReward))
	for _, st := range t.Steps {
		s.showRecord(st)
	}
	if len(t.CloseComponents) > 0 {
		s.out.linef("closed: reward%s", components(t.CloseComponents))
	}
}

// showRecord prints one recorded step: the call, its reward, and the
// first line of its error or observation; a turn of a message or of
// several calls prints its text and each call so.
func (s *session) showRecord(st schemas.StepRecord) {
	calls := st.CallList()
	if st.Action.Message != nil || len(calls) > 1 {
		s.showTurnRecord(st, calls)
		return
	}
	call := callText(st.Tool, st.Arguments)
	if st.Action.Text != nil {
		call = "text, parsed as " + call
		if st.Error != nil && st.Error.Code == schemas.ErrCodeFormat {
			call = "text, not parsed"
		}
	}
	s.out.linef("%2d. %s", st.Turn, s.out.paint(styleBold, oneLine(call)))
	s.out.styledf(styleCyan, "    reward %s%s", num(st.Reward), components(st.RewardComponents))
	s.showOutcomeLine("    ", st.Error, st.ResultMeta, st.Observation)
}

// showTurnRecord prints a recorded turn of a message, or of a text of
// several calls: what the model wrote beside the calls, its reasoning,
// the turn's reward, then each call with its reward and what it got.
func (s *session) showTurnRecord(st schemas.StepRecord, calls []schemas.CallRecord) {
	head := fmt.Sprintf("text of %s", plural(len(calls), "call"))
	if st.Action.Message != nil {
		head = fmt.Sprintf("message of %s", plural(len(calls), "call"))
	}
	s.out.linef("%2d. %s", st.Turn, s.out.paint(styleBold, head))
	if st.Content != nil {
		s.out.linef("    content: %s", oneLine(*st.Content))
	}
	if m := st.Action.Message; m != nil && m.ReasoningContent != nil {
		s.out.styledf(styleDim, "    reasoning: %s", oneLine(*m.ReasoningContent))
	}
	s.out.styledf(styleCyan, "    reward %s%s", num(st.Reward), components(st.RewardComponents))
	if len(calls) == 0 && st.Error != nil {
		s.out.errorf("    error [%s]: %s", st.Error.Code, oneLine(st.Error.Message))
	}
	for _, c := range calls {
		s.out.linef("    %s %s", c.ID, oneLine(callText(c.Tool, c.Arguments)))
		if c.RewardComponents != nil {
			s.out.styledf(styleCyan, "      reward%s", components(c.RewardComponents))
		}
		s.showOutcomeLine("      ", c.Error, c.ResultMeta, c.Observation)
	}
}

// showOutcomeLine prints what a call got, on one line: its error, the
// shape of its rows, or the first line of its observation.
func (s *session) showOutcomeLine(indent string, err *schemas.ToolError, meta *schemas.ResultMeta, observation string) {
	switch {
	case err != nil:
		s.out.errorf("%serror [%s]: %s", indent, err.Code, oneLine(err.Message))
	case meta != nil:
		s.out.linef("%s%s, columns %s", indent, plural(meta.RowCount, "row"), strings.Join(meta.Columns, ", "))
	default:
		first, _, _ := strings.Cut(observation, "\n")
		s.out.linef("%s%s", indent, first)
	}
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// reward prints the reward spec of the current episode (the server's
// when there is none) and what each component has paid so far.
func (s *session) reward(ctx context.Context) {
	if s.ep == nil {
		s.out.linef("the server's reward spec (no episode yet):")
		s.showSpec(s.info.Reward, "")
		return
	}
	t := s.fetch(ctx)
	if t == nil {
		return
	}
	s.showSpec(t.RewardSpec, t.RewardSpecHash)
	total := map[string]float64{}
	for _, st := range t.Steps {
		for k, v := range st.RewardComponents {
			total[k] += v
		}
	}
	for k, v := range t.CloseComponents {
		total[k] += v
	}
	s.out.linef("paid so far, over %s:", plural(len(t.Steps), "step"))
	names := make([]string, 0, len(total))
	for k := range total {
		names = append(names, k)
	}
	sort.Strings(names)
	rows := make([][]string, 0, len(names)+1)
	for _, k := range names {
		rows = append(rows, []string{k, num(total[k])})
	}
	rows = append(rows, []string{"total", num(t.TotalReward)})
	for _, r := range rows {
		s.out.linef("  %-22s %s", r[0], r[1])
	}
}

// showSpec prints a reward spec, a line per group of components.
func (s *session) showSpec(spec schemas.RewardSpec, hash string) {
	if hash != "" {
		hash = " " + hash
	}
	s.out.linef("reward spec%s: match %s, float_tolerance %s, keep_distinct %t",
		hash, spec.Match, num(spec.FloatTolerance), spec.KeepDistinct)
	s.out.linef("  final: %s", pairs(spec.Final))
	s.out.linef("  turn:  %s", pairs(spec.Turn))
}

// pairs renders a flat struct as "name value, ..." with its JSON names,
// in field order.
func pairs(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var parts []string
	if _, err := dec.Token(); err != nil { // {
		return string(raw)
	}
	for dec.More() {
		k, err1 := dec.Token()
		val, err2 := dec.Token()
		if err1 != nil || err2 != nil {
			return string(raw)
		}
		parts = append(parts, fmt.Sprintf("%v %v", k, val))
	}
	return strings.Join(parts, ", ")
}
