package openenv

import (
	"context"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// engine is the one place this package calls the episodes.Manager: a
// reset, a step, a close, an idle episode abandoned, an episode's record and the server's tools.
type engine struct{ m *episodes.Manager }

// reset starts an episode; its prompt is native unless the client asks
// for another style: an OpenEnv client calls the tools natively.
func (e engine) reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error) {
	if p.PromptStyle == "" {
		p.PromptStyle = schemas.PromptStyleNative
	}
	return e.m.Reset(ctx, p)
}

// step runs one action of the episode, after the steps queued before it.
func (e engine) step(ctx context.Context, id string, a schemas.Action) (*schemas.StepResult, error) {
	return e.m.Step(ctx, schemas.StepParams{EpisodeID: id, Action: a})
}

// close ends the episode (recorded as no_submit when it had not ended).
func (e engine) close(ctx context.Context, id string) error {
	_, err := e.m.Close(ctx, id)
	return err
}

// abandonIdle ends the episode as the Manager's idle sweep does
// (abandoned) unless a step of it runs or waits; true when it is no
// longer live.
func (e engine) abandonIdle(ctx context.Context, id string) bool { return e.m.AbandonIdle(ctx, id) }

// record is the episode's trajectory so far.
func (e engine) record(id string) (*schemas.Trajectory, error) {
	snap, err := e.m.Get(id)
	if err != nil {
		return nil, err
	}
	return snap.Trajectory()
}

// tools are the server's tools, as server.info lists them.
func (e engine) tools() []schemas.Tool {
	return e.m.Info(schemas.Limits{}).Tools
}

// version is the server's version.
func (e engine) version() string {
	return e.m.Info(schemas.Limits{}).Version
}
