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

// step runs one action of the episode. The caller holds the episode's
// ticket. It returns the step's reply and, when the step ended the
// episode, the finished trajectory.
func (s *Session) step(ctx context.Context, m *Manager, a schemas.Action, usage *schemas.Usage) (schemas.StepResult, *schemas.Trajectory, error) {
	if s.isEnded() {
		return schemas.StepResult{}, nil, fmt.Errorf("%w: %s", ErrEnded, s.id)
	}
	start, turn := m.now(), s.turn()+1
	call, extra, kind, eff, err := s.act(ctx, m, a)
	if err != nil {
		return schemas.StepResult{}, nil, err
	}
	outcome := ""
	if eff.final != nil {
		outcome = eff.final.Outcome
	} else if turn >= s.maxTurns {
		outcome = schemas.OutcomeNoSubmit
		eff.final = &reward.Final{Outcome: outcome}
	}
	tokens := s.addTokens(usage)
	if eff.final != nil {
		eff.final.CompletionTokens = tokens
	}
	comps, r := s.ledger.Step(kind, eff.final)
	left := s.maxTurns - turn
	content := s.observation(m, &eff, extra, outcome, left)
	res := schemas.StepResult{
		Observation: schemas.Observation{Role: "tool", Name: call.Name, Content: content},
		Reward:      r,
		Terminated:  outcome != "" && outcome != schemas.OutcomeNoSubmit,
		Truncated:   outcome == schemas.OutcomeNoSubmit,
		Info: schemas.StepInfo{Turn: turn, TurnsLeft: left, Tool: call.Name, Error: eff.err,
			Result: eff.result, RewardComponents: comps, Outcome: outcome},
	}
	now := m.now()
	rec := schemas.StepRecord{
		Turn: turn, Action: a, Tool: call.Name, Arguments: call.Arguments, Usage: usage,
		Observation: content, Error: eff.err, ResultMeta: eff.meta, Reward: r,
		RewardComponents: comps, Outcome: outcome, ElapsedMS: schemas.Milliseconds(now.Sub(start)), At: now,
	}
	held, ended := s.appendStep(rec, outcome, now)
	if err := m.cfg.Recorder.Step(ctx, s.id, held); err != nil {
		return res, ended, m.recordFailed(s.id, "step", err)
	}
	return res, ended, nil
}

// act parses the action and runs its call: a text with no call is a
// format error that runs nothing.
func (s *Session) act(ctx context.Context, m *Manager, a schemas.Action) (tools.Call, int, reward.Turn, effect, error) {
	call, extra, perr := s.resolve(a)
	if perr != nil {
		return call, extra, reward.TurnFormatError, effect{err: perr}, nil
	}
	kind, eff, err := s.run(ctx, m, call)
	return call, extra, kind, eff, err
}

// observation is the text the model sees: the call's content (or its
// error), a note on ignored calls, and the turns left or why it ended.
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

// resolve turns an action into a call: a parsed call as it is, a text
// action through the episode's format parser.
func (s *Session) resolve(a schemas.Action) (tools.Call, int, *schemas.ToolError) {
	if a.Text == nil {
		return tools.Call{Name: a.Tool, Arguments: a.Arguments}, 0, nil
	}
	return tools.ParseText(s.format, *a.Text)
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
