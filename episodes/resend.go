package episodes

import (
	"encoding/json"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// A step sent again: a client that lost a step's reply (its connection
// dropped, its replica died) sends the step again with the turn it will
// have (StepParams.Turn). A turn the episode has already recorded runs
// nothing; its reply is rebuilt from the record. So a step is never run
// twice, whichever replica the second send reaches.

// resent answers a step sent again: the recorded step's reply when the
// episode has recorded turn, done false when turn is the next one (the
// step runs), and an InvalidArgument when turn is past it. The caller
// holds the episode's ticket.
func (s *session) resent(turn int) (res *schemas.StepResult, done bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return resentOf(&s.traj, turn)
}

// resentOf is resent over a trajectory: a live episode's, or an ended
// one's as kept.
func resentOf(t *schemas.Trajectory, turn int) (*schemas.StepResult, bool, error) {
	n := len(t.Steps)
	switch {
	case turn == 0 || turn == n+1:
		return nil, false, nil
	case turn > n+1:
		return nil, true, errorf(InvalidArgument, "turn %d: episode %s has recorded %d steps, so its next step is turn %d",
			turn, t.EpisodeID, n, n+1)
	}
	res := replayedResult(&t.Steps[turn-1], t.MaxTurns, t.ActionFormat)
	return &res, true, nil
}

// resentEnded answers a step sent again to an episode that has ended (it
// may be the step that ended it): the recorded reply when the ended
// trajectory is still held here, or was read from the shared store
// (rec), and has recorded turn.
func (m *Manager) resentEnded(id string, turn int, rec *trajlog.Record) (*schemas.StepResult, bool) {
	if turn == 0 {
		return nil, false
	}
	var t schemas.Trajectory
	if rec != nil {
		t = rec.Trajectory
	} else if e := m.recentEntry(id); e == nil || e.enc == nil || json.Unmarshal(e.enc, &t) != nil {
		return nil, false
	}
	res, done, err := resentOf(&t, turn)
	if !done || err != nil {
		return nil, false
	}
	return res, true
}

// replayedResult rebuilds a recorded step's reply: the same observation,
// rewards, end and calls, with Replayed set. The rows of a result are
// not recorded: its info.result holds the columns and counts alone.
func replayedResult(rec *schemas.StepRecord, maxTurns int, format string) schemas.StepResult {
	res := schemas.StepResult{
		Observation: schemas.Observation{Role: "tool", Name: rec.Tool, Content: rec.Observation},
		Reward:      rec.Reward,
		Terminated:  rec.Outcome != "" && rec.Outcome != schemas.OutcomeNoSubmit,
		Truncated:   rec.Outcome == schemas.OutcomeNoSubmit,
		Info: schemas.StepInfo{Turn: rec.Turn, TurnsLeft: maxTurns - rec.Turn, Tool: rec.Tool, Error: rec.Error,
			Result: infoOf(rec.ResultMeta), RewardComponents: rec.RewardComponents, Outcome: rec.Outcome,
			Judge: rec.Judge, Replayed: true},
	}
	listed := rec.Action.Message != nil || (rec.Action.Text != nil && format == schemas.FormatHermes)
	if calls := rec.CallList(); listed && len(calls) > 0 {
		res.Observations = make([]schemas.ToolMessage, len(calls))
		res.Info.Calls = make([]schemas.CallInfo, len(calls))
		for i, c := range calls {
			res.Observations[i] = schemas.ToolMessage{Role: "tool", ToolCallID: c.ID, Name: c.Tool, Content: c.Observation}
			res.Info.Calls[i] = schemas.CallInfo{ID: c.ID, Tool: c.Tool, Error: c.Error, Result: infoOf(c.ResultMeta),
				RewardComponents: c.RewardComponents}
		}
	}
	return res
}

// infoOf is a result's info as far as its record keeps it: no rows.
func infoOf(m *schemas.ResultMeta) *schemas.ResultInfo {
	if m == nil {
		return nil
	}
	return &schemas.ResultInfo{Columns: m.Columns, Rows: [][]any{}, RowCount: m.RowCount, Truncated: m.Truncated, ElapsedMS: m.ElapsedMS}
}
