package bench

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// fixedQuery is what the submit script submits, and what the others run
// when the database shows no table. Correctness does not matter here.
const fixedQuery = "SELECT 1"

// episode is one episode a socket plays: its number in the run, the id
// and task the server gave it, and the steps its script has left.
type episode struct {
	n       int64
	id      string
	task    string
	actions []*action
}

// action is one step of a script, its params encoded once.
type action struct {
	tool   string // the tool it calls: its latency key and whether it runs SQL
	params []byte // episode.step's params
	// then, when set, reads the step's whole result and returns the
	// steps that follow it.
	then func(*schemas.StepResult) []*action
}

// next starts the slot's next episode, or retires the slot when the run's
// bounds or ctx say no more start.
func (s *socket) next() {
	n, ok := s.r.ticket()
	if !ok || s.ctx.Err() != nil {
		s.retire()
		return
	}
	r := s.r
	seed := r.cfg.Seed + n
	p := schemas.ResetParams{Dataset: r.cfg.Dataset, Seed: &seed, ActionFormat: "hermes", Tags: r.tags}
	if r.cfg.Script == ScriptGold {
		turns := r.cfg.GoldRepeats + 1 // whatever the server's default budget
		p.MaxTurns = &turns
	}
	params, _ := schemas.Marshal(p)
	s.send(&call{kind: callReset, ep: &episode{n: n}, key: keyReset}, schemas.MethodReset, params)
}

// reply handles the server's answer to c, read from its frame in one
// pass: a result, or a JSON-RPC error.
func (s *socket) reply(c *call, frame []byte) {
	switch c.kind {
	case callAbandon:
		s.next()
	case callReset:
		var res resetReply
		rpcErr, ok := decodeFrame(frame, &res)
		s.answered(c, rpcErr, ok)
		s.afterReset(c.ep, &res, rpcErr == nil && ok, rpcErr)
	case callStep:
		var res schemas.StepResult
		rpcErr, ok := decodeStep(frame, c.act.then != nil, &res)
		s.answered(c, rpcErr, ok)
		s.afterStep(c.ep, c.act, &res, rpcErr == nil && ok)
	case callClose:
		var res schemas.CloseResult
		rpcErr, ok := decodeFrame(frame, &res)
		s.answered(c, rpcErr, ok)
		s.afterClose(c.ep, &res, rpcErr == nil && ok)
	}
}

// answered times an answered call and counts its error: a JSON-RPC error
// by code, a frame that could not be read as "unreadable".
func (s *socket) answered(c *call, rpcErr *schemas.Error, readable bool) {
	r := s.r
	d := time.Since(c.t0)
	r.lat[c.key].record(d)
	if c.kind == callStep {
		r.lat[keyStep].record(d)
	}
	switch {
	case !readable:
		r.errCount.Add(1)
		r.count(r.errs, "unreadable")
	case rpcErr != nil:
		r.errCount.Add(1)
		r.count(r.errs, strconv.Itoa(rpcErr.Code))
	}
}

// afterReset starts the episode's script, or, when the reset failed,
// the slot's next episode (after a pause when the server is full).
func (s *socket) afterReset(ep *episode, res *resetReply, ok bool, rpcErr *schemas.Error) {
	r := s.r
	if !ok {
		r.resetsFailed.Add(1)
		if rpcErr != nil && (rpcErr.Code == schemas.CodeCapacity || rpcErr.Code == schemas.CodeEpisodeBusy) {
			s.after(10*time.Millisecond, s.next)
			return
		}
		s.next()
		return
	}
	r.started.Add(1)
	ep.id, ep.task = res.EpisodeID, res.Task.TaskID
	actions, err := s.script(ep)
	if err != nil {
		r.errCount.Add(1)
		r.count(r.errs, "no_gold")
		s.fail(ep)
		return
	}
	ep.actions = actions
	s.take(ep)
}

// take sends the episode's next step, or closes it when its script has
// none left.
func (s *socket) take(ep *episode) {
	if len(ep.actions) == 0 {
		params, _ := schemas.Marshal(schemas.CloseParams{EpisodeID: ep.id})
		s.send(&call{kind: callClose, ep: ep, key: keyClose}, schemas.MethodClose, params)
		return
	}
	a := ep.actions[0]
	ep.actions = ep.actions[1:]
	if s.r.pace != nil {
		s.r.ready <- pacedStep{s, ep, a}
		return
	}
	s.sendStep(ep, a, time.Time{})
}

// sendStep sends a step, timed from due when it was paced.
func (s *socket) sendStep(ep *episode, a *action, due time.Time) {
	s.r.sent.Add(1)
	s.send(&call{kind: callStep, ep: ep, act: a, key: stepKey(a.tool), t0: due}, schemas.MethodStep, a.params)
}

// afterStep counts what a step reported and goes on with the episode, or
// with the slot's next one when this one ended or failed.
func (s *socket) afterStep(ep *episode, a *action, res *schemas.StepResult, ok bool) {
	r := s.r
	if !ok {
		s.fail(ep)
		return
	}
	r.steps.Add(1)
	if a.tool == "execute_sql" || a.tool == "submit" {
		r.sqlSteps.Add(1)
	}
	if res.Info.Error != nil {
		r.count(r.toolErrors, res.Info.Error.Code)
	}
	if res.Terminated || res.Truncated {
		r.count(r.outcomes, outcomeName(res.Info.Outcome))
		r.ended.Add(1)
		s.next()
		return
	}
	if a.then != nil {
		ep.actions = a.then(res)
	}
	s.take(ep)
}

// afterClose counts how a closed episode ended.
func (s *socket) afterClose(ep *episode, res *schemas.CloseResult, ok bool) {
	if !ok {
		s.fail(ep)
		return
	}
	s.r.count(s.r.outcomes, outcomeName(res.Outcome))
	s.r.ended.Add(1)
	s.next()
}

// fail counts a started episode as failed and closes it, so it does not
// hold a place on the server until its idle timeout; the slot's next
// episode starts when the close is answered.
func (s *socket) fail(ep *episode) {
	s.r.failed.Add(1)
	params, _ := schemas.Marshal(schemas.CloseParams{EpisodeID: ep.id})
	s.send(&call{kind: callAbandon, ep: ep}, schemas.MethodClose, params)
}

// lost accounts for a call that got no answer: the stream ended, the run
// was cancelled, or it timed out. Its slot retires, as the stream is
// gone or the server is not answering.
func (s *socket) lost(c *call, code string) {
	r := s.r
	switch c.kind {
	case callReset:
		r.resetsFailed.Add(1)
	case callStep, callClose:
		r.failed.Add(1)
	}
	if c.kind != callAbandon {
		r.errCount.Add(1)
		r.count(r.errs, code)
	}
	s.retire()
}

// script is the episode's steps, as its script plays them.
func (s *socket) script(ep *episode) ([]*action, error) {
	r := s.r
	switch r.cfg.Script {
	case ScriptSubmit:
		return []*action{toolAction(ep.id, "submit", fixedQuery)}, nil
	case ScriptGold:
		gold, ok := r.golds[ep.task]
		if !ok {
			return nil, fmt.Errorf("%w: the server drew task %s, which the tasks given lack", errNoGold, ep.task)
		}
		return goldActions(ep.id, gold, r.cfg.GoldRepeats), nil
	}
	first := newAction(ep.id, client.ToolCall("inspect_schema", map[string]any{}))
	first.then = func(res *schemas.StepResult) []*action {
		return s.actions(ep, pickTable(parseTables(res.Observation.Content), ep.n))
	}
	return []*action{first}, nil
}

// actions are the steps after inspect_schema, on one table.
func (s *socket) actions(ep *episode, table string) []*action {
	sample, count := fixedQuery, fixedQuery
	if table != "" {
		sample, count = "SELECT * FROM "+table+" LIMIT 5", "SELECT count(*) FROM "+table
	}
	if s.r.cfg.Script == ScriptExplore {
		return []*action{
			newAction(ep.id, client.ToolCall("inspect_schema", map[string]any{"table": table})),
			toolAction(ep.id, "execute_sql", sample),
			toolAction(ep.id, "execute_sql", count),
			toolAction(ep.id, "submit", count),
		}
	}
	call, _ := json.Marshal(map[string]any{"name": "submit", "arguments": map[string]string{"sql": count}})
	return []*action{
		toolAction(ep.id, "execute_sql", sample),
		newAction(ep.id, client.Text("I will count the rows.\n<tool_call>"+string(call)+"</tool_call>")),
	}
}

// toolAction calls tool with {"sql": sql}.
func toolAction(episodeID, tool, sql string) *action {
	return newAction(episodeID, client.ToolCall(tool, map[string]any{"sql": sql}))
}

// newAction encodes a's step params for the episode.
func newAction(episodeID string, a schemas.Action) *action {
	tool := a.Tool
	if a.Text != nil {
		tool = "submit" // the scripts' only text action
	}
	params, _ := schemas.Marshal(schemas.StepParams{EpisodeID: episodeID, Action: a})
	return &action{tool: tool, params: params}
}

func outcomeName(o string) string {
	if o == "" {
		return "unknown"
	}
	return o
}

// parseTables reads the table names from inspect_schema's listing, one
// "name(col TYPE, ...)" line per table after a header line, each name
// written as SQL needs it (quoted where it must be).
func parseTables(content string) []string {
	lines := strings.Split(content, "\n")
	var out []string
	for _, line := range lines[1:] {
		if name := tableName(line); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// tableName is the name before a listing line's column list: a plain
// identifier, or a double-quoted one with "" for a quote; "" for a line
// that is not a table.
func tableName(line string) string {
	if !strings.HasPrefix(line, `"`) {
		name, _, ok := strings.Cut(line, "(")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return ""
		}
		return name
	}
	for i := 1; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		if i+1 < len(line) && line[i+1] == '"' {
			i++
			continue
		}
		if i+1 < len(line) && line[i+1] == '(' {
			return line[:i+1]
		}
		return ""
	}
	return ""
}

// pickTable chooses episode n's table, so the queries spread over them.
func pickTable(tables []string, n int64) string {
	if len(tables) == 0 {
		return ""
	}
	return tables[n%int64(len(tables))]
}
