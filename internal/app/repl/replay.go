package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// replay re-plays a recorded episode: .replay FILE|DIR [episode_id | N],
// from a file of records or a trajectory log (a data dir, or its
// trajectories/). It resets the same task with the recorded action
// format, turn budget and reward spec, then sends each recorded action
// again (on a terminal, one per Enter) and compares the new observation
// and reward with the recorded ones.
func (s *session) replay(ctx context.Context, args []string) {
	if len(args) < 1 || len(args) > 2 {
		s.out.errorf("usage: .replay FILE|DIR [episode_id | N]")
		return
	}
	pick := ""
	if len(args) == 2 {
		pick = args[1]
	}
	var rec *schemas.Trajectory
	var n int
	if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
		if rec, n = s.logRecord(ctx, args[0], pick); rec == nil {
			return
		}
	} else if rec, n, err = findRecord(args[0], pick); err != nil {
		s.out.errorf(".replay: %v", err)
		return
	}
	s.out.linef("replaying %s (record %d of %s): %s, %s, outcome %s, total reward %s",
		rec.EpisodeID, n, args[0], rec.Task.TaskID, plural(len(rec.Steps), "step"), rec.Outcome, num(rec.TotalReward))
	if !s.offersRecorded(rec) || !s.start(ctx, replayParams(rec)) {
		return
	}
	if slices.Equal(rec.Messages, s.ep.reset.Messages) {
		s.out.styledf(styleGreen, "  same prompt as recorded")
	} else {
		s.out.styledf(styleYellow, "  DIFFERS: prompt (.prompt shows the new one)")
	}
	sent, differ := s.replaySteps(ctx, rec)
	s.replaySummary(rec, sent, differ)
}

// replaySteps sends the recorded actions again until they run out, the
// new episode ends, or the user stops; it says how many were sent and
// how many of those differ from the record.
func (s *session) replaySteps(ctx context.Context, rec *schemas.Trajectory) (sent, differ int) {
	for i, st := range rec.Steps {
		if s.ep.ended {
			s.out.errorf("the new episode has ended: %d recorded steps were not sent", len(rec.Steps)-i)
			break
		}
		s.out.styledf(styleBold, "step %d/%d: %s", i+1, len(rec.Steps), oneLine(actionText(st)))
		if !s.awaitEnter() {
			s.out.linef("replay stopped")
			break
		}
		r := s.step(ctx, st.Action)
		if r == nil {
			break
		}
		sent++
		if !s.compare(st, r) {
			differ++
		}
	}
	return sent, differ
}

// replayParams resets the recorded task as it was played: its action
// format, turn budget, reward spec, tools and prompt style.
func replayParams(rec *schemas.Trajectory) schemas.ResetParams {
	p := schemas.ResetParams{TaskID: rec.Task.TaskID, ActionFormat: rec.ActionFormat, MaxTurns: new(rec.MaxTurns),
		Tools: recordedTools(rec), PromptStyle: rec.PromptStyle}
	if rec.RewardSpec.Match != "" {
		p.Reward, _ = json.Marshal(rec.RewardSpec)
	}
	p.Tags, _ = json.Marshal(map[string]string{originTag: originREPL, "replay_of": rec.EpisodeID})
	return p
}

// offersRecorded says whether the server offers every tool the recorded
// episode did; when it does not, it says which and how to get them, and
// nothing is reset: a replay without them would differ at their first
// call for want of the tool, not for anything the model did.
func (s *session) offersRecorded(rec *schemas.Trajectory) bool {
	server := toolNames(s.info.Tools)
	var missing []string
	for _, t := range recordedTools(rec) {
		if !slices.Contains(server, t) {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return true
	}
	s.out.errorf("the recorded episode offered %s, which this server has not enabled (it offers %s): nothing was sent",
		strings.Join(missing, ", "), strings.Join(server, ", "))
	s.out.errorf("a server started with --tools %s replays it (sqlgym serve, or sqlgym repl without --url)",
		strings.Join(withTools(server, missing), ","))
	return false
}

// v1Tools are protocol v1's tools, which a record naming no tools offered.
var v1Tools = []string{schemas.ToolInspectSchema, schemas.ToolExecuteSQL, schemas.ToolSubmit}

// recordedTools are the tools the recorded episode offered.
func recordedTools(rec *schemas.Trajectory) []string {
	if len(rec.Tools) == 0 {
		return v1Tools
	}
	return rec.Tools
}

// awaitEnter waits for Enter on a terminal; false when the user typed q,
// pressed Ctrl-C or ended the input. A script does not wait.
func (s *session) awaitEnter() bool {
	if !s.term {
		return true
	}
	line, err := s.in.readLine("Enter sends it, q stops> ")
	return err == nil && strings.TrimSpace(line) != "q"
}

// timedComponent is paid by how fast the queries ran, so a replay pays it
// differently without anything having changed.
const timedComponent = "final.efficiency"

// untimed is a step's reward without its timed component.
func untimed(reward float64, comps map[string]float64) float64 {
	return reward - comps[timedComponent]
}

// compare shows a recorded step next to its replay and says whether the
// observation, the reward and the outcome are the same.
func (s *session) compare(st schemas.StepRecord, r *stepReply) bool {
	var diffs []string
	if st.Observation != r.Observation.Content {
		diffs = append(diffs, "observation")
	}
	if num(untimed(st.Reward, st.RewardComponents)) != num(untimed(r.Reward, r.Info.RewardComponents)) {
		diffs = append(diffs, "reward")
	}
	if st.Outcome != r.Info.Outcome {
		diffs = append(diffs, "outcome")
	}
	s.out.styledf(styleCyan, "  recorded reward %s%s", num(st.Reward), components(st.RewardComponents))
	s.out.styledf(styleCyan, "  new      reward %s%s", num(r.Reward), components(r.Info.RewardComponents))
	if len(diffs) == 0 {
		s.out.linef("  observation (the same):")
		s.out.block("    ", r.Observation.Content)
		s.out.styledf(styleGreen, "  same observation, reward and outcome")
		return true
	}
	s.out.linef("  recorded observation:")
	s.out.block("    ", st.Observation)
	s.out.linef("  new observation:")
	s.out.block("    ", r.Observation.Content)
	s.out.styledf(styleYellow, "  DIFFERS: %s", strings.Join(diffs, ", "))
	return false
}

func (s *session) replaySummary(rec *schemas.Trajectory, sent, differ int) {
	outcome, total := "gone", 0.0 // the server lost the episode mid-replay
	if s.ep != nil {
		outcome, total = "live", s.ep.total
		if s.ep.ended {
			outcome = s.ep.outcome
		}
	}
	s.out.linef("replay: %d of %s sent, %d differ; recorded outcome %s (total %s), new %s (total %s)",
		sent, plural(len(rec.Steps), "step"), differ, rec.Outcome, num(rec.TotalReward), outcome, num(total))
}

// actionText renders a recorded action briefly: a message by its calls
// (and its text, when it has one).
func actionText(st schemas.StepRecord) string {
	switch m := st.Action.Message; {
	case m != nil:
		parts := make([]string, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			args := tc.Function.Arguments
			var inner string
			if json.Unmarshal(args, &inner) == nil {
				args = json.RawMessage(inner) // the OpenAI shape: a string holding the object
			}
			parts[i] = callText(tc.Function.Name, args)
		}
		text := "message: " + plural(len(parts), "call")
		if len(parts) > 0 {
			text += " (" + strings.Join(parts, "; ") + ")"
		}
		if m.Content != nil && *m.Content != "" {
			text += ", text: " + *m.Content
		}
		return text
	case st.Action.Text != nil:
		return "text: " + *st.Action.Text
	}
	return callText(st.Action.Tool, st.Action.Arguments)
}

// findRecord reads trajectory records (JSON lines, or any sequence of
// JSON objects) from path and returns the one whose episode_id is pick,
// or the pick-th (from 1), or the first when pick is empty, with its
// number.
func findRecord(path, pick string) (*schemas.Trajectory, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	want, byNumber := 1, pick == ""
	if v, err := strconv.Atoi(pick); err == nil {
		if v < 1 {
			return nil, 0, fmt.Errorf("record numbers start at 1, got %d", v)
		}
		want, byNumber = v, true
	}
	dec := json.NewDecoder(f)
	for n := 1; ; n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, 0, fmt.Errorf("%s: record %d: %w", path, n, err)
		}
		t, err := trajectoryOf(raw)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: record %d: %w", path, n, err)
		}
		if byNumber && n == want || !byNumber && t.EpisodeID == pick {
			return t, n, nil
		}
	}
	if byNumber {
		return nil, 0, fmt.Errorf("%s holds fewer than %d records", path, want)
	}
	return nil, 0, fmt.Errorf("%s holds no episode %s", path, pick)
}

// trajectoryOf reads one line of a records file as a trajectory record,
// or says what the line is instead: a replay must not start (closing the
// live episode) on a line that holds no task to reset.
func trajectoryOf(raw json.RawMessage) (*schemas.Trajectory, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, fmt.Errorf("not a trajectory record: %w", err)
	}
	notRecord := func(what string) error {
		return fmt.Errorf("not a trajectory record but %s; .replay takes the records of export --format raw "+
			"(or a file of episode.get replies), or a data dir or its trajectories/ folder", what)
	}
	switch {
	case keys["ev"] != nil:
		return nil, notRecord("a line of a trajectory log segment (give the data dir or its trajectories/ folder instead)")
	case keys["chosen"] != nil || keys["rejected"] != nil:
		return nil, notRecord("a DPO pair (export --format dpo)")
	case keys["messages"] != nil && keys["episode_id"] == nil:
		return nil, notRecord("a chat conversation, as in an SFT export (export --format sft)")
	}
	var t schemas.Trajectory
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("not a trajectory record: %w", err)
	}
	if t.EpisodeID == "" || t.Task.TaskID == "" {
		return nil, notRecord("a JSON object without episode_id and task.task_id")
	}
	return &t, nil
}
