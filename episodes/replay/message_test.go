package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/replay"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/schemas"
)

// The turns of TestMessageActions: an assistant message with text,
// reasoning and two calls (ids given, arguments as a JSON string and as
// an object), then one whose calls have no id, the second a submit, and a
// third call after it.
const (
	firstMessage = `{"role":"assistant","content":"I will look at the tables, then count the open loans.",` +
		`"reasoning_content":"The loans table should have a return_date.",` +
		`"tool_calls":[{"id":"call_look","type":"function","function":{"name":"inspect_schema","arguments":"{\"table\": \"loans\"}"}},` +
		`{"id":"call_count","type":"function","function":{"name":"execute_sql","arguments":{"sql":"SELECT count(*) FROM loans WHERE return_date IS NULL"}}}]}`
	secondMessage = `{"role":"assistant","content":null,` +
		`"tool_calls":[{"type":"function","function":{"name":"execute_sql","arguments":"{\"sql\":\"SELECT count(*) FROM loans\"}"}},` +
		`{"type":"function","function":{"name":"submit","arguments":"{\"sql\": \"SELECT count(*) FROM loans WHERE return_date IS NULL\"}"}},` +
		`{"id":"call_late","type":"function","function":{"name":"inspect_schema","arguments":"{}"}}]}`
)

// TestMessageActions sends assistant messages over a real WebSocket:
// every call runs in order, the reply has a tool message per call with
// the call's id, the trajectory (episode.get and the log) holds each
// message exactly as sent and every call with its tool message, and
// replay reproduces the episode.
func TestMessageActions(t *testing.T) {
	s, log, c, r := logged(t, "")
	ctx := context.Background()

	first := stepRaw(t, c, r.EpisodeID, `{"message":`+firstMessage+`}`)
	wantCalls(t, first, []string{"call_look inspect_schema", "call_count execute_sql"})
	if !strings.Contains(first.Observations[0].Content, "return_date") || !strings.HasPrefix(first.Observations[1].Content, "count(*)") ||
		!strings.HasSuffix(first.Observations[1].Content, "7 turns left.") || first.Terminated {
		t.Fatalf("the calls did not run in order, or their messages are wrong: %+v", first.Observations)
	}
	if first.Info.Tool != schemas.ToolExecuteSQL || first.Info.Result == nil || first.Observation.Content !=
		"Call 1 (inspect_schema):\n"+first.Observations[0].Content+"\n\nCall 2 (execute_sql):\n"+first.Observations[1].Content {
		t.Fatalf("v1 fields of a two-call turn: tool %q, result %v, observation %q", first.Info.Tool, first.Info.Result, first.Observation.Content)
	}
	if first.Info.RewardComponents["turn.ok"] != 2*first.Info.Calls[0].RewardComponents["turn.ok"] {
		t.Errorf("the turn's components %v are not its calls' sums (%v)", first.Info.RewardComponents, first.Info.Calls)
	}

	second := stepRaw(t, c, r.EpisodeID, `{"message":`+secondMessage+`}`)
	wantCalls(t, second, []string{"call_2_0 execute_sql", "call_2_1 submit", "call_late inspect_schema"})
	late := second.Info.Calls[2]
	if second.Info.Outcome != schemas.OutcomeCorrect || late.Error == nil || late.Error.Code != schemas.ErrCodeNotRun ||
		late.RewardComponents != nil || !strings.HasPrefix(second.Observations[2].Content, "Not run: the submit of call \"call_2_1\"") {
		t.Fatalf("after the submit: outcome %q, late call %+v, message %q", second.Info.Outcome, late, second.Observations[2].Content)
	}
	if _, ok := second.Info.Calls[1].RewardComponents["final.correct"]; !ok {
		t.Errorf("the submit did not earn final.correct: %v", second.Info.Calls)
	}

	var got struct {
		Steps []struct {
			Action struct {
				Message json.RawMessage `json:"message"`
			} `json:"action"`
		} `json:"steps"`
	}
	if err := c.Call(ctx, schemas.MethodEpisodeGet, schemas.CloseParams{EpisodeID: r.EpisodeID}, &got); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{firstMessage, secondMessage} {
		if !bytes.Equal(compact(t, got.Steps[i].Action.Message), compact(t, []byte(want))) {
			t.Errorf("episode.get step %d holds the message\n%s\nwant it as sent\n%s", i+1, got.Steps[i].Action.Message, want)
		}
	}
	rec := logRecord(t, log, r.EpisodeID)
	checkRecordedTurns(t, rec, first, second)
	checkReplay(t, s, rec)
	checkRescore(t, rec)
}

// checkRescore pays a recorded episode of several calls a turn again:
// under its own spec every number comes out as recorded; under a spec
// that pays turn.ok, each call that ran earns it, and a call that did not
// run earns nothing.
func checkRescore(t *testing.T, rec *trajlog.Record) {
	t.Helper()
	same, err := replay.NewRescorer(replay.RescoreConfig{Spec: rec.RewardSpec}).Episode(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range same.Record.Steps {
		w := rec.Steps[i]
		if !near(st.Reward, w.Reward) || fmt.Sprint(st.RewardComponents) != fmt.Sprint(w.RewardComponents) ||
			fmt.Sprint(st.Calls) != fmt.Sprint(w.Calls) {
			t.Errorf("step %d rescored under its own spec: %v %v, recorded %v %v", i+1, st.Reward, st.Calls, w.Reward, w.Calls)
		}
	}
	next := rec.RewardSpec
	next.Turn.OK = 0.01
	paid, err := replay.NewRescorer(replay.RescoreConfig{Spec: next}).Episode(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	steps := paid.Record.Steps
	if !near(steps[0].RewardComponents["turn.ok"], 0.02) || !near(steps[1].RewardComponents["turn.ok"], 0.02) ||
		!near(steps[1].Calls[0].RewardComponents["turn.ok"], 0.01) || steps[1].Calls[2].RewardComponents != nil ||
		!near(paid.Record.TotalReward, rec.TotalReward+0.04) {
		t.Errorf("rescored with turn.ok 0.01: %v / %v, calls %v, total %v (was %v)", steps[0].RewardComponents,
			steps[1].RewardComponents, steps[1].Calls, paid.Record.TotalReward, rec.TotalReward)
	}
}

// checkRecordedTurns checks the log's record of TestMessageActions's
// episode against the replies the client got.
func checkRecordedTurns(t *testing.T, rec *trajlog.Record, replies ...*schemas.StepResult) {
	t.Helper()
	for i, want := range []string{firstMessage, secondMessage} {
		st := rec.Steps[i]
		raw, _ := json.Marshal(st.Action.Message)
		if !bytes.Equal(compact(t, raw), compact(t, []byte(want))) {
			t.Errorf("the log's step %d holds the message\n%s\nwant\n%s", i+1, raw, want)
		}
		if len(st.Calls) != len(replies[i].Observations) {
			t.Fatalf("step %d records %d calls for %d tool messages", i+1, len(st.Calls), len(replies[i].Observations))
		}
		for j, call := range st.Calls {
			msg := replies[i].Observations[j]
			if call.ID != msg.ToolCallID || call.Tool != msg.Name || call.Observation != msg.Content || call.Arguments[0] != '{' {
				t.Errorf("step %d call %d recorded as %+v; its tool message was %+v", i+1, j, call, msg)
			}
		}
	}
	if c := rec.Steps[0].Content; c == nil || *c != "I will look at the tables, then count the open loans." || rec.Steps[1].Content != nil {
		t.Errorf("recorded contents %v, %v", rec.Steps[0].Content, rec.Steps[1].Content)
	}
	if a := string(compact(t, rec.Steps[0].Calls[0].Arguments)); a != `{"table":"loans"}` {
		t.Errorf("the first call's arguments were recorded as %s, want the object its string held", a)
	}
}

// TestHermesTextTurns sends hermes completions with two <tool_call>
// blocks over a real WebSocket: both run in order, the reply has a tool
// message per call, the record keeps the text whole, the text outside
// the blocks as the turn's content and every call, and replay reproduces
// the episode.
func TestHermesTextTurns(t *testing.T) {
	s, log, c, r := logged(t, schemas.FormatHermes)
	ctx := context.Background()
	texts := []string{
		"<think>Look first.</think>\nI will look at the loans table, then count.\n" +
			"<tool_call>\n{\"name\": \"inspect_schema\", \"arguments\": {\"table\": \"loans\"}}\n</tool_call>\n" +
			"<tool_call>\n{\"name\": \"execute_sql\", \"arguments\": {\"sql\": \"SELECT count(*) FROM loans WHERE return_date IS NULL\"}}\n</tool_call>",
		"<tool_call>{\"name\": \"execute_sql\", \"arguments\": {\"sql\": \"SELECT 1\"}}</tool_call>\nAnd the answer:\n" +
			"<tool_call>{\"name\": \"submit\", \"arguments\": {\"sql\": \"SELECT count(*) FROM loans WHERE return_date IS NULL\"}}</tool_call>",
	}
	var replies []*schemas.StepResult
	for _, text := range texts {
		res, err := c.Step(ctx, r.EpisodeID, client.Text(text))
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, res)
	}
	wantCalls(t, replies[0], []string{"call_1_0 inspect_schema", "call_1_1 execute_sql"})
	wantCalls(t, replies[1], []string{"call_2_0 execute_sql", "call_2_1 submit"})
	if replies[1].Info.Outcome != schemas.OutcomeCorrect {
		t.Fatalf("outcome %q", replies[1].Info.Outcome)
	}
	rec := logRecord(t, log, r.EpisodeID)
	for i, want := range []string{"<think>Look first.</think>\nI will look at the loans table, then count.", "And the answer:"} {
		st := rec.Steps[i]
		if st.Action.Text == nil || *st.Action.Text != texts[i] || st.Content == nil || *st.Content != want || len(st.Calls) != 2 {
			t.Fatalf("step %d recorded text %v, content %v, %d calls; want the text whole, content %q, 2 calls",
				i+1, st.Action.Text, st.Content, len(st.Calls), want)
		}
		for j, call := range st.Calls {
			if call.ID != replies[i].Observations[j].ToolCallID || call.Observation != replies[i].Observations[j].Content {
				t.Errorf("step %d call %d recorded as %+v, reply %+v", i+1, j, call, replies[i].Observations[j])
			}
		}
	}
	checkReplay(t, s, rec)
}

// logged starts a server of the demo recording into a trajectory log,
// and an episode of demo/library-003 in the action format given.
func logged(t *testing.T, format string) (*stack, *filelog.Log, *client.Client, *schemas.ResetResult) {
	t.Helper()
	s := newStack(t, demoDataset(t))
	log, err := filelog.Open(t.TempDir(), filelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	c := s.serve(t, log, 8)
	r, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "demo/library-003", ActionFormat: format})
	if err != nil {
		t.Fatal(err)
	}
	return s, log, c, r
}

// stepRaw sends an episode.step whose action is the given JSON, as is.
func stepRaw(t *testing.T, c *client.Client, episodeID, action string) *schemas.StepResult {
	t.Helper()
	params := json.RawMessage(fmt.Sprintf(`{"episode_id":%q,"action":%s}`, episodeID, action))
	var res schemas.StepResult
	if err := c.Call(context.Background(), schemas.MethodStep, params, &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

// wantCalls checks a reply's tool messages and info.calls: one per call,
// in order, each "id tool".
func wantCalls(t *testing.T, res *schemas.StepResult, want []string) {
	t.Helper()
	if len(res.Observations) != len(want) || len(res.Info.Calls) != len(want) {
		t.Fatalf("%d tool messages and %d calls, want %d: %+v", len(res.Observations), len(res.Info.Calls), len(want), res)
	}
	for i, w := range want {
		m, info := res.Observations[i], res.Info.Calls[i]
		if got := m.ToolCallID + " " + m.Name; got != w || m.Role != "tool" || info.ID != m.ToolCallID || info.Tool != m.Name {
			t.Errorf("call %d: tool message %+v, info %+v; want %q", i, m, info, w)
		}
	}
}

// logRecord reads an episode's record back from the log.
func logRecord(t *testing.T, log *filelog.Log, id string) *trajlog.Record {
	t.Helper()
	var rec *trajlog.Record
	err := log.Episodes(context.Background(), trajlog.Filter{}, func(r *trajlog.Record) error {
		if r.EpisodeID == id {
			rec = r
		}
		return nil
	})
	if err != nil || rec == nil || !rec.Complete {
		t.Fatalf("the log's record of %s: %+v (%v)", id, rec, err)
	}
	return rec
}

// checkReplay replays a record and wants it reproduced, every step.
func checkReplay(t *testing.T, s *stack, rec *trajlog.Record) {
	t.Helper()
	res := s.replayer(t, 1).Episode(context.Background(), rec)
	if res.Status != replay.Reproduced || res.Matched != len(rec.Steps) {
		t.Fatalf("replay: %s", res.Text())
	}
}

func compact(t *testing.T, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return b.Bytes()
}
