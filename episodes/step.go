package episodes

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// effect is what running one call did, before the reward is paid.
type effect struct {
	tools.Result                    // the observation's text, the call's error, execute_sql's info and meta
	final        *reward.Final      // set by submit
	judge        *schemas.JudgeInfo // set by submit
}

// step runs one action of the episode: every call it holds, in order.
// The caller holds the episode's ticket. It returns the step's reply and,
// when the step ended the episode, the finished trajectory.
func (s *session) step(ctx context.Context, p *schemas.StepParams) (schemas.StepResult, *schemas.Trajectory, error) {
	if s.isEnded() {
		return schemas.StepResult{}, nil, stateErrorf(Ended, "%s", s.id)
	}
	var f stepFacts
	if err := s.play(env.WithHolder(ctx, s.holder), p, &f); err != nil {
		return schemas.StepResult{}, nil, err
	}
	now := s.deps.now()
	held, ended := s.appendStep(f.record(now), f.outcome, now)
	res := f.result()
	if err := s.deps.recorder.Step(ctx, s.id, held); err != nil {
		return res, ended, s.deps.recordFailed(s.id, "step", err)
	}
	return res, ended, nil
}

// play runs the step's calls, pays them and writes their messages: it
// gathers into f the facts of the step that its reply and its record
// both render.
func (s *session) play(ctx context.Context, p *schemas.StepParams, f *stepFacts) error {
	f.p, f.start, f.turn = *p, s.deps.now(), s.turn()+1
	f.t = s.readTurn(p.Action, f.turn)
	if err := s.runCalls(ctx, &f.t); err != nil {
		return err
	}
	f.last = f.t.last()
	if f.last == nil {
		f.last = &call{eff: effect{Result: tools.Result{Error: f.t.perr}}}
	}
	fin := f.last.eff.final
	if fin != nil {
		f.outcome = fin.Outcome
	} else if f.turn >= s.maxTurns {
		f.outcome = schemas.OutcomeNoSubmit
		fin = &reward.Final{Outcome: f.outcome}
	}
	tokens := s.addTokens(p.Usage)
	if fin != nil {
		fin.CompletionTokens = tokens
	}
	f.comps, f.reward = s.pay(&f.t, fin)
	f.left = s.maxTurns - f.turn
	f.content = s.messages(&f.t, f.outcome, f.left)
	return nil
}

// observation is the text the model sees after a call: its content (or
// its error), a note on ignored calls, and the turns left or why the
// episode ended.
func (s *session) observation(eff *effect, extra int, outcome string, left int) string {
	content := eff.Content
	if eff.Error != nil && content == "" {
		content = "Error: " + eff.Error.Message
	}
	if extra > 0 {
		content += "\n" + tools.ExtraCallsNote(extra)
	}
	switch outcome {
	case "":
		return s.deps.runner.TurnsLeft(content, left)
	case schemas.OutcomeNoSubmit:
		return content + "\nNo turns left: the episode ended without a submission."
	}
	return content
}

// run decodes and runs one call, and says what kind of turn it was.
func (s *session) run(ctx context.Context, call tools.Call) (reward.Turn, effect, error) {
	inv, terr := s.tools.Decode(call)
	if terr != nil {
		// An unknown tool or arguments that do not fit its schema: the
		// call is malformed, which the reward treats as a format error.
		return reward.TurnFormatError, effect{Result: tools.Result{Error: terr}}, nil
	}
	key := inv.Key()
	repeat := s.seen[key]
	s.seen[key] = true
	target := tools.Target{DB: s.db, Dialect: s.dialect, Dataset: s.ds, DBID: s.task.DBID}
	res, err := s.deps.runner.Run(ctx, target, inv)
	var eff effect
	if err == nil && res.Submitted != nil {
		eff, err = s.submit(ctx, *res.Submitted)
	} else {
		eff = fromResult(res)
	}
	switch {
	case err != nil:
		return 0, eff, err
	case eff.Error != nil && eff.final == nil:
		return reward.TurnToolError, eff, nil
	case repeat:
		return reward.TurnRepeat, eff, nil
	}
	return reward.TurnOK, eff, nil
}

// toolError is the observation error for a failed submission.
func toolError(qe *env.QueryError) *schemas.ToolError {
	return &schemas.ToolError{Code: tools.ErrorCode(qe), Message: qe.Message}
}

// submit scores the submitted SQL against the gold.
func (s *session) submit(ctx context.Context, sql string) (effect, error) {
	v, err := s.deps.judge.Judge(ctx, s.db, s.dbKey, s.task, sql, s.spec)
	if err != nil {
		return effect{}, fmt.Errorf("judge %s: %w", s.task.ID, err)
	}
	eff := effect{final: finalOf(v), judge: v.Info()}
	msg := ""
	if v.PredErr != nil {
		eff.Error = toolError(v.PredErr)
		msg = v.PredErr.Message
	}
	if v.Pred != nil {
		eff.Meta = tools.Meta(v.Pred)
	}
	eff.Content = tools.SubmitText(v.Outcome, msg)
	if v.Outcome == schemas.OutcomeCorrect && v.NoTableRead && s.spec.Final.RequiresTableRead {
		eff.Content = tools.NoTableReadText
	}
	return eff, nil
}

// finalOf turns the judge's verdict into the facts the ledger pays for.
func finalOf(v judge.Verdict) *reward.Final {
	f := v.Final()
	return &f
}

func fromResult(r tools.Result) effect {
	r.Rows = nil // the step keeps no raw result: execute_sql's meta is its info's
	return effect{Result: r}
}
