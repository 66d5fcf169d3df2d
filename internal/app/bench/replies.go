package bench

import "github.com/sqlgym/sqlgym/schemas"

// The bench's client shares the machine with the server it measures, so
// it reads of each reply only what it counts: a reset reply's prompt and
// tool schemas, and a step reply's observation, are skipped, not decoded.

// resetReply is the part of an episode.reset result the bench uses.
type resetReply struct {
	EpisodeID string `json:"episode_id"`
	Task      struct {
		TaskID string `json:"task_id"`
	} `json:"task"`
}

// stepReply is the part of an episode.step result that a script looking
// only at the counts needs: terminated, truncated, info.error and
// info.outcome.
type stepReply struct {
	Terminated bool `json:"terminated"`
	Truncated  bool `json:"truncated"`
	Info       struct {
		Error   *schemas.ToolError `json:"error"`
		Outcome string             `json:"outcome"`
	} `json:"info"`
}

// result is the reply as a StepResult holding the counted fields.
func (r *stepReply) result() schemas.StepResult {
	res := schemas.StepResult{Terminated: r.Terminated, Truncated: r.Truncated}
	res.Info.Error, res.Info.Outcome = r.Info.Error, r.Info.Outcome
	return res
}
