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
	// Step runs one action with every param of episode.step: the usage,
	// when not nil, is what the model's completion behind it cost,
	// recorded with the step and paid by the reward's length term; the
	// finish reason is recorded with the step.
	Step(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error)
	Close(ctx context.Context, episodeID string) (*schemas.CloseResult, error)
}

// ManagerEnv runs episodes on an in-process Manager, the same code the
// server runs them with.
type ManagerEnv struct{ M *episodes.Manager }

// Reset starts an episode.
func (e ManagerEnv) Reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error) {
	return e.M.Reset(ctx, p)
}

// Step runs the step once the episode's steps before it have run.
func (e ManagerEnv) Step(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error) {
	return e.M.Step(ctx, p)
}

// Close ends the episode.
func (e ManagerEnv) Close(ctx context.Context, id string) (*schemas.CloseResult, error) {
	return e.M.Close(ctx, id)
}

// Caller is what ClientEnv calls: a *client.Client, or a
// *client.Resumer, which reconnects and sends again what had no reply,
// so that a run survives its server's replica being killed or drained.
type Caller interface {
	Reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error)
	StepParams(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error)
	CloseEpisode(ctx context.Context, episodeID string) (*schemas.CloseResult, error)
}

var (
	_ Caller = (*client.Client)(nil)
	_ Caller = (*client.Resumer)(nil)
)

// ClientEnv runs episodes on a server reached over a socket.
type ClientEnv struct{ C Caller }

// Reset starts an episode.
func (e ClientEnv) Reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error) {
	return e.C.Reset(ctx, p)
}

// Step runs one step with every param.
func (e ClientEnv) Step(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error) {
	return e.C.StepParams(ctx, p)
}

// Close ends the episode.
func (e ClientEnv) Close(ctx context.Context, id string) (*schemas.CloseResult, error) {
	return e.C.CloseEpisode(ctx, id)
}
