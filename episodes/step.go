package episodes

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// effect is what running one call did, before the reward is paid.
type effect struct {
	content string
	err     *schemas.ToolError
	result  *schemas.ResultInfo
	meta    *schemas.ResultMeta
	final   *reward.Final // set by submit
}

// step runs one action of the episode: every call it holds, in order.
// The caller holds the episode's ticket. It returns the step's reply and,
// when the step ended the episode, the finished trajectory.
func (s *Session) step(ctx context.Context, m *Manager, p *schemas.StepParams) (schemas.StepResult, *schemas.Trajectory, error) {
	if s.isEnded() {
		return schemas.StepResult{}, nil, fmt.Errorf("%w: %s", ErrEnded, s.id)
	}
	if p.Action.Message != nil {
		if e := CheckMessage(&p.Action); e != nil {
			return schemas.StepResult{}, nil, e
		}
	}
	start, turn := m.now(), s.turn()+1
	t := s.readTurn(p.Action, turn)
	if err := s.runCalls(ctx, m, &t); err != nil {
		return schemas.StepResult{}, nil, err
	}
	last := t.last()
	if last == nil {
		last = &call{eff: effect{err: t.perr}}
	}
	outcome, fin := "", last.eff.final
	if fin != nil {
		outcome = fin.Outcome
	} else if turn >= s.maxTurns {
		outcome = schemas.OutcomeNoSubmit
		fin = &reward.Final{Outcome: outcome}
	}
	tokens := s.addTokens(p.Usage)
	if fin != nil {
		fin.CompletionTokens = tokens
	}
	comps, r := s.pay(&t, fin)
	left := s.maxTurns - turn
	content := s.messages(m, &t, outcome, left)
	res := schemas.StepResult{
		Observation: schemas.Observation{Role: "tool", Name: last.c.Name, Content: content},
		Reward:      r,
		Terminated:  outcome != "" && outcome != schemas.OutcomeNoSubmit,
		Truncated:   outcome == schemas.OutcomeNoSubmit,
		Info: schemas.StepInfo{Turn: turn, TurnsLeft: left, Tool: last.c.Name, Error: last.eff.err,
			Result: last.eff.result, RewardComponents: comps, Outcome: outcome},
	}
	if t.listed && len(t.calls) > 0 {
		res.Observations, res.Info.Calls = t.toolMessages(), t.infos()
	}
	now := m.now()
	rec := schemas.StepRecord{
		Turn: turn, Action: p.Action, Tool: last.c.Name, Arguments: last.c.Arguments, Usage: p.Usage,
		Observation: content, Error: last.eff.err, ResultMeta: last.eff.meta, Reward: r,
		RewardComponents: comps, Outcome: outcome, ElapsedMS: schemas.Milliseconds(now.Sub(start)), At: now,
		Content: t.content, FinishReason: p.FinishReason,
	}
	if t.record {
		rec.Calls = t.records()
		if last.ran && last.perr == nil {
			rec.Arguments = decodedArgs(last.c.Arguments)
		}
	}
	held, ended := s.appendStep(rec, outcome, now)
	if err := m.cfg.Recorder.Step(ctx, s.id, held); err != nil {
		return res, ended, m.recordFailed(s.id, "step", err)
	}
	return res, ended, nil
}

// observation is the text the model sees after a call: its content (or
// its error), a note on ignored calls, and the turns left or why the
// episode ended.
func (s *Session) observation(m *Manager, eff *effect, extra int, outcome string, left int) string {
	content := eff.content
	if eff.err != nil && content == "" {
		content = "Error: " + eff.err.Message
	}
	if extra > 0 {
		content += "\n" + tools.ExtraCallsNote(extra)
	}
	switch outcome {
	case "":
		return m.cfg.Runner.TurnsLeft(content, left)
	case schemas.OutcomeNoSubmit:
		return content + "\nNo turns left: the episode ended without a submission."
	}
	return content
}

// run decodes and runs one call, and says what kind of turn it was.
func (s *Session) run(ctx context.Context, m *Manager, call tools.Call) (reward.Turn, effect, error) {
	inv, terr := s.tools.Decode(call)
	if terr != nil {
		// An unknown tool or arguments that do not fit its schema: the
		// call is malformed, which the reward treats as a format error.
		return reward.TurnFormatError, effect{err: terr}, nil
	}
	key := inv.Key()
	repeat := s.seen[key]
	s.seen[key] = true
	target := tools.Target{DB: s.db, Dialect: s.dialect, Dataset: s.ds, DBID: s.task.DBID}
	res, err := m.cfg.Runner.Run(ctx, target, inv)
	var eff effect
	if err == nil && res.Submitted != nil {
		eff, err = s.submit(ctx, m, *res.Submitted)
	} else {
		eff = fromResult(res)
	}
	switch {
	case err != nil:
		return 0, eff, err
	case eff.err != nil && eff.final == nil:
		return reward.TurnToolError, eff, nil
	case repeat:
		return reward.TurnRepeat, eff, nil
	}
	return reward.TurnOK, eff, nil
}

// submit scores the submitted SQL against the gold.
func (s *Session) submit(ctx context.Context, m *Manager, sql string) (effect, error) {
	v, err := m.cfg.Judge.Judge(ctx, s.db, s.dbKey, s.task, sql, s.spec)
	if err != nil {
		return effect{}, fmt.Errorf("judge %s: %w", s.task.ID, err)
	}
	eff := effect{final: finalOf(v)}
	msg := ""
	if v.PredErr != nil {
		eff.err = toolError(v.PredErr)
		msg = v.PredErr.Message
	}
	if v.Pred != nil {
		eff.meta = tools.Meta(v.Pred)
	}
	eff.content = tools.SubmitText(v.Outcome, msg)
	if v.Outcome == schemas.OutcomeCorrect && v.NoTableRead && s.spec.Final.RequiresTableRead {
		eff.content = tools.NoTableReadText
	}
	return eff, nil
}

// finalOf turns the judge's verdict into the facts the ledger pays for.
func finalOf(v judge.Verdict) *reward.Final {
	f := v.Final()
	return &f
}

func fromResult(r tools.Result) effect {
	// execute_sql reads at most the rows it shows: its meta is its info's
	return effect{content: r.Content, err: r.Error, result: r.Info, meta: r.Meta}
}
