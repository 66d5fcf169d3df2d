package episodes

import (
	"encoding/json"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// stepFacts are what one step did, gathered once (session.play): the
// step's reply (result) and its trajectory record (record) are both
// rendered from them, so the two never tell the step differently.
type stepFacts struct {
	p       schemas.StepParams // what the client sent (a copy: the caller's stays on its stack)
	start   time.Time          // when the step began to run
	turn    int                // the step's turn, from 1
	left    int                // turns left after it
	t       turnIn             // its calls, each with what it got and earned
	last    *call              // the last call that ran; the turn's format error when none did
	content string             // the observation: the last call's message, or every call's
	reward  float64
	comps   map[string]float64 // the turn's components, summed over its calls
	outcome string             // how the episode ended; "" while it goes on
}

// tool is the name of the tool the step's last call named.
func (f *stepFacts) tool() string { return f.last.c.Name }

// result renders the step's reply.
func (f *stepFacts) result() schemas.StepResult {
	res := schemas.StepResult{
		Observation: schemas.Observation{Role: "tool", Name: f.tool(), Content: f.content},
		Reward:      f.reward,
		Terminated:  f.outcome != "" && f.outcome != schemas.OutcomeNoSubmit,
		Truncated:   f.outcome == schemas.OutcomeNoSubmit,
		Info: schemas.StepInfo{Turn: f.turn, TurnsLeft: f.left, Tool: f.tool(), Error: f.last.eff.Error,
			Result: f.last.eff.Info, RewardComponents: f.comps, Outcome: f.outcome, Judge: f.last.eff.judge},
	}
	if f.t.listed && len(f.t.calls) > 0 {
		res.Observations, res.Info.Calls = f.t.toolMessages(), f.t.infos()
	}
	return res
}

// record renders the step's trajectory record, ended at now.
func (f *stepFacts) record(now time.Time) schemas.StepRecord {
	rec := schemas.StepRecord{
		Turn: f.turn, Action: f.p.Action, Tool: f.tool(), Arguments: f.arguments(), Usage: f.p.Usage,
		Observation: f.content, Error: f.last.eff.Error, ResultMeta: f.last.eff.Meta, Reward: f.reward,
		RewardComponents: f.comps, Outcome: f.outcome, ElapsedMS: schemas.Milliseconds(now.Sub(f.start)), At: now,
		Content: f.t.content, FinishReason: f.p.FinishReason, Judge: f.last.eff.judge,
	}
	if f.t.record {
		rec.Calls = f.t.records()
	}
	return rec
}

// arguments are the step's arguments as the record keeps them: the last
// call's as given, decoded (decodedArgs) when the record lists the calls
// and that call was read.
func (f *stepFacts) arguments() json.RawMessage {
	if f.t.record && f.last.ran && f.last.perr == nil {
		return decodedArgs(f.last.c.Arguments)
	}
	return f.last.c.Arguments
}
