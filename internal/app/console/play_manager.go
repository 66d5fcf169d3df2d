package console

import (
	"context"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// This file holds every call the console makes into the episode
// Manager: the play page's tasks, resets, steps and reads.

// ManagerPlayer plays episodes on an episode Manager in this process.
type ManagerPlayer struct {
	M *episodes.Manager
}

// Tasks lists tasks as tasks.list does.
func (p ManagerPlayer) Tasks(params schemas.TasksListParams) (*schemas.TasksListResult, error) {
	return p.M.ListTasks(params)
}

// Reset starts an episode.
func (p ManagerPlayer) Reset(ctx context.Context, params schemas.ResetParams) (*schemas.ResetResult, error) {
	return p.M.Reset(ctx, params)
}

// Step runs one action of a live episode, in its turn.
func (p ManagerPlayer) Step(ctx context.Context, id string, a schemas.Action) (*schemas.StepResult, error) {
	return p.M.Step(ctx, schemas.StepParams{EpisodeID: id, Action: a})
}

// Episode is a live or recently ended episode's trajectory.
func (p ManagerPlayer) Episode(id string) (*schemas.Trajectory, error) {
	snap, err := p.M.Get(id)
	if err != nil {
		return nil, err
	}
	return snap.Trajectory()
}
