package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// fixedQuery is what the submit script submits, and what the others run
// when the database shows no table. Correctness does not matter here.
const fixedQuery = "SELECT 1"

// player plays one episode's script on one socket.
type player struct {
	run  *run
	c    *client.Client
	id   string // episode id
	task string // its task id
	n    int64  // the episode's number in the run
}

// episode resets episode n, plays the script and counts how it ended.
// It returns errStop when the worker should stop.
func (r *run) episode(ctx context.Context, c *client.Client, n int64) error {
	seed := r.cfg.Seed + n
	p := schemas.ResetParams{Dataset: r.cfg.Dataset, Seed: &seed, ActionFormat: "hermes", Tags: r.tags}
	if r.cfg.Script == ScriptGold {
		turns := r.cfg.GoldRepeats + 1 // whatever the server's default budget
		p.MaxTurns = &turns
	}
	var res resetReply
	if err := r.call(ctx, c, keyReset, schemas.MethodReset, p, &res, time.Time{}); err != nil {
		r.resetsFailed.Add(1)
		return r.afterError(ctx, err)
	}
	r.started.Add(1)
	pl := &player{run: r, c: c, id: res.EpisodeID, task: res.Task.TaskID, n: n}
	ended, err := pl.play(ctx)
	if err == nil && !ended {
		ended, err = pl.close(ctx)
	}
	if err != nil {
		r.failed.Add(1)
		pl.abandon(ctx, err)
		return r.afterError(ctx, err)
	}
	r.ended.Add(1)
	return nil
}

// play runs the script until it submits or the episode ends; ended says
// whether the server ended it.
func (p *player) play(ctx context.Context) (ended bool, err error) {
	switch p.run.cfg.Script {
	case ScriptSubmit:
		return p.step(ctx, client.ToolCall("submit", map[string]any{"sql": fixedQuery}))
	case ScriptGold:
		gold, ok := p.run.golds[p.task]
		if !ok {
			p.run.errCount.Add(1)
			p.run.count(p.run.errs, "no_gold")
			return false, fmt.Errorf("%w: the server drew task %s, which the tasks given lack", errNoGold, p.task)
		}
		return p.steps(ctx, goldActions(gold, p.run.cfg.GoldRepeats))
	}
	var tables []string
	ended, err = p.stepThen(ctx, client.ToolCall("inspect_schema", map[string]any{}), func(r *schemas.StepResult) {
		tables = parseTables(r.Observation.Content)
	})
	if ended || err != nil {
		return ended, err
	}
	return p.steps(ctx, p.actions(pickTable(tables, p.n)))
}

// steps takes the actions in turn until one ends the episode.
func (p *player) steps(ctx context.Context, actions []schemas.Action) (ended bool, err error) {
	for _, a := range actions {
		if ended, err = p.step(ctx, a); ended || err != nil {
			return ended, err
		}
	}
	return false, nil
}

// actions are the steps after inspect_schema, on one table.
func (p *player) actions(table string) []schemas.Action {
	sample, count := fixedQuery, fixedQuery
	if table != "" {
		sample, count = "SELECT * FROM "+table+" LIMIT 5", "SELECT count(*) FROM "+table
	}
	if p.run.cfg.Script == ScriptExplore {
		return []schemas.Action{
			client.ToolCall("inspect_schema", map[string]any{"table": table}),
			client.ToolCall("execute_sql", map[string]any{"sql": sample}),
			client.ToolCall("execute_sql", map[string]any{"sql": count}),
			client.ToolCall("submit", map[string]any{"sql": count}),
		}
	}
	call, _ := json.Marshal(map[string]any{"name": "submit", "arguments": map[string]string{"sql": count}})
	return []schemas.Action{
		client.ToolCall("execute_sql", map[string]any{"sql": sample}),
		client.Text("I will count the rows.\n<tool_call>" + string(call) + "</tool_call>"),
	}
}

func (p *player) step(ctx context.Context, a schemas.Action) (bool, error) {
	return p.stepThen(ctx, a, nil)
}

// stepThen takes one step (at its scheduled time, when the run is
// paced), hands its result to then (when not nil), and counts what it
// reports; it returns whether the episode ended.
func (p *player) stepThen(ctx context.Context, a schemas.Action, then func(*schemas.StepResult)) (bool, error) {
	tool := a.Tool
	if a.Text != nil {
		tool = "submit" // the scripts' only text action
	}
	r := p.run
	due, err := r.pace.wait(ctx)
	if err != nil {
		return false, err
	}
	res, err := p.send(ctx, tool, a, due, then == nil)
	if err != nil {
		return false, err
	}
	r.steps.Add(1)
	if tool == "execute_sql" || tool == "submit" {
		r.sqlSteps.Add(1)
	}
	if res.Info.Error != nil {
		r.count(r.toolErrors, res.Info.Error.Code)
	}
	if then != nil {
		then(&res)
	}
	if !res.Terminated && !res.Truncated {
		return false, nil
	}
	r.count(r.outcomes, outcomeName(res.Info.Outcome))
	return true, nil
}

// send makes the step call; with slim, only the counted fields of the
// reply are decoded.
func (p *player) send(ctx context.Context, tool string, a schemas.Action, due time.Time, slim bool) (schemas.StepResult, error) {
	params := schemas.StepParams{EpisodeID: p.id, Action: a}
	key := stepKey(tool)
	if !slim {
		var res schemas.StepResult
		err := p.run.call(ctx, p.c, key, schemas.MethodStep, params, &res, due)
		return res, err
	}
	var reply stepReply
	err := p.run.call(ctx, p.c, key, schemas.MethodStep, params, &reply, due)
	return reply.result(), err
}

// close ends an episode the script left running.
func (p *player) close(ctx context.Context) (bool, error) {
	var res schemas.CloseResult
	err := p.run.call(ctx, p.c, keyClose, schemas.MethodClose, schemas.CloseParams{EpisodeID: p.id}, &res, time.Time{})
	if err != nil {
		return false, err
	}
	p.run.count(p.run.outcomes, outcomeName(res.Outcome))
	return true, nil
}

// abandon closes an episode that failed on a JSON-RPC error, so it does not
// hold a place on the server until its idle timeout. It is not counted:
// the episode may have ended already.
func (p *player) abandon(ctx context.Context, err error) {
	var rpcErr *schemas.Error
	if !errors.As(err, &rpcErr) && !errors.Is(err, errNoGold) {
		return // the socket is gone, or the run was cancelled
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	p.c.CloseEpisode(cctx, p.id)
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
