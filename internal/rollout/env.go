package rollout

import (
	"context"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// Env runs episodes: the episode server's methods, in process or over a
// socket.
type Env interface {
	Reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error)
	// Step runs one action; usage, when not nil, is what the model's
	// completion behind it cost, recorded with the step and paid by the
	// reward's length term.
	Step(ctx context.Context, episodeID string, a schemas.Action, usage *schemas.Usage) (*schemas.StepResult, error)
	// StepParams is Step with every param of episode.step: the finish
	// reason too, recorded with the step.
	StepParams(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error)
	Close(ctx context.Context, episodeID string) (*schemas.CloseResult, error)
}

// ManagerEnv runs episodes on an in-process Manager, the same code the
// server runs them with.
type ManagerEnv struct{ M *episodes.Manager }

// Reset starts an episode.
func (e ManagerEnv) Reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error) {
	return e.M.Reset(ctx, p)
}

// Step takes the step's place in its episode's queue and runs it.
func (e ManagerEnv) Step(ctx context.Context, id string, a schemas.Action, usage *schemas.Usage) (*schemas.StepResult, error) {
	st, err := e.M.Enqueue(id)
	if err != nil {
		return nil, err
	}
	return e.M.StepWith(ctx, st, a, usage) // StepWith gives the place up however it ends
}

// StepParams takes the step's place in its episode's queue and runs it.
func (e ManagerEnv) StepParams(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error) {
	st, err := e.M.Enqueue(p.EpisodeID)
	if err != nil {
		return nil, err
	}
	return e.M.StepParams(ctx, st, p) // it gives the place up however it ends
}

// Close ends the episode.
func (e ManagerEnv) Close(ctx context.Context, id string) (*schemas.CloseResult, error) {
	return e.M.Close(ctx, id)
}

// ClientEnv runs episodes on a server reached over a socket.
type ClientEnv struct{ C *client.Client }

// Reset starts an episode.
func (e ClientEnv) Reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error) {
	return e.C.Reset(ctx, p)
}

// Step runs one action.
func (e ClientEnv) Step(ctx context.Context, id string, a schemas.Action, usage *schemas.Usage) (*schemas.StepResult, error) {
	return e.C.StepParams(ctx, schemas.StepParams{EpisodeID: id, Action: a, Usage: usage})
}

// StepParams runs one step with every param.
func (e ClientEnv) StepParams(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error) {
	return e.C.StepParams(ctx, p)
}

// Close ends the episode.
func (e ClientEnv) Close(ctx context.Context, id string) (*schemas.CloseResult, error) {
	return e.C.CloseEpisode(ctx, id)
}
