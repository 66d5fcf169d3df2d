package export_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

var t0 = time.Date(2026, 5, 6, 7, 8, 9, 123456789, time.UTC)

// prompt is the system and user messages of the fixtures' episodes.
var prompt = []schemas.Message{{Role: "system", Content: "You answer with SQL."}, {Role: "user", Content: "How many books?"}}

// step is one fixture step: a tool call (tool, args), a text action, or
// a turn of several calls (calls), which came as an assistant message
// when msg is set, else as text.
type step struct {
	tool, args, text, obs string
	msg                   *schemas.AssistantMessage
	content               *string
	calls                 []call
}

// call is one call of a turn of several calls: its id (the model's, or
// "" for the one the server gives), tool, arguments as sent (a JSON
// string in a message) and what came back; code is its error's, if any.
type call struct {
	id, tool, args, obs, code string
}

// messageStep is a turn that came as an assistant message with content
// (nil for null), reasoning (nil for none) and calls.
func messageStep(content, reasoning *string, calls ...call) step {
	m := &schemas.AssistantMessage{Role: "assistant", Content: content, ReasoningContent: reasoning}
	for _, c := range calls {
		args, _ := json.Marshal(c.args)
		m.ToolCalls = append(m.ToolCalls, schemas.ToolCall{ID: c.id, Type: "function", Function: schemas.FunctionCall{Name: c.tool, Arguments: args}})
	}
	return step{msg: m, content: content, calls: calls}
}

// hermesStep is a hermes text action recorded with the text outside its
// call blocks (content, "" for none) and each call it held.
func hermesStep(text, content string, calls ...call) step {
	s := step{text: text, calls: calls}
	if content != "" {
		s.content = &content
	}
	return s
}

func ptr(s string) *string { return &s }

func callStep(tool, args, obs string) step { return step{tool: tool, args: args, obs: obs} }

// textStep is a text action; tool is what the server parsed from it ("" for none).
func textStep(text, tool, args, obs string) step {
	return step{text: text, tool: tool, args: args, obs: obs}
}

// rec builds an ended episode of task whose last step ends it with
// outcome, total reward total.
func rec(id, task, outcome string, total float64, at time.Time, steps ...step) *trajlog.Record {
	end := at.Add(time.Minute)
	r := &trajlog.Record{Complete: true, Trajectory: schemas.Trajectory{
		EpisodeID: id, Task: schemas.TaskView{TaskID: task, Dataset: "demo", DBID: "library", Question: "How many books?", Dialect: "sqlite"},
		Tags:       json.RawMessage(`{"policy":"p1"}`),
		RewardSpec: schemas.DefaultRewardSpec(), RewardSpecHash: "sha256:feedfacefeedface", ActionFormat: "hermes", MaxTurns: 8,
		Messages: prompt, StartedAt: at, EndedAt: &end, Outcome: outcome, FinalReward: total, TotalReward: total,
		Steps: []schemas.StepRecord{}, ServerVersion: "test",
	}}
	for i, s := range steps {
		st := schemas.StepRecord{Turn: i + 1, Tool: s.tool, Observation: s.obs, At: at.Add(time.Duration(i+1) * time.Second),
			RewardComponents: map[string]float64{"turn.ok": 0}, ElapsedMS: 0.5}
		if s.args != "" {
			st.Arguments = json.RawMessage(s.args)
		}
		st.Content = s.content
		if s.calls != nil {
			multiCall(&st, s)
		} else if s.text != "" {
			text := s.text
			st.Action = schemas.Action{Text: &text}
		} else {
			st.Action = schemas.Action{Tool: s.tool, Arguments: json.RawMessage(s.args)}
		}
		if i == len(steps)-1 {
			st.Outcome, st.Reward = outcome, total
		}
		r.Steps = append(r.Steps, st)
	}
	return r
}

// multiCall records a turn of several calls as the server does: each
// call with its id (call_<turn>_<i> when the model gave none) and
// decoded arguments, the step's observation their contents one after
// another, and the action as sent.
func multiCall(st *schemas.StepRecord, s step) {
	var obs []string
	for i, c := range s.calls {
		id := c.id
		if id == "" {
			id = schemas.CallID(st.Turn, i)
		}
		cr := schemas.CallRecord{ID: id, Tool: c.tool, Arguments: json.RawMessage(c.args), Observation: c.obs}
		if c.code != "" {
			cr.Error = &schemas.ToolError{Code: c.code, Message: c.obs}
		}
		st.Calls = append(st.Calls, cr)
		obs = append(obs, c.obs)
	}
	st.Tool, st.Observation = s.calls[0].tool, strings.Join(obs, "\n\n")
	if s.msg != nil {
		st.Action = schemas.Action{Message: s.msg}
	} else {
		text := s.text
		st.Action = schemas.Action{Text: &text}
	}
}

// submit is an episode of one submit of sql with the given outcome.
func submit(id, task, sql, outcome string, total float64, at time.Time) *trajlog.Record {
	args := fmt.Sprintf(`{"sql":%q}`, sql)
	return rec(id, task, outcome, total, at, callStep("submit", args, "Submitted. "+outcome+"."))
}

// memReader serves records from memory, as a store would.
type memReader []*trajlog.Record

func (m memReader) Episodes(ctx context.Context, f trajlog.Filter, fn func(*trajlog.Record) error) error {
	for _, r := range m {
		if f.Match(r) {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}
