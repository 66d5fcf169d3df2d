package mcpserver

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// episodeAPI is every call this package makes into the episode Manager.
type episodeAPI struct{ m *episodes.Manager }

// tools are the tools the server offers episodes, in the native
// protocol's shape (server.info's tools).
func (a episodeAPI) tools() []schemas.Tool { return a.m.Info(schemas.Limits{}).Tools }

// listTasks is tasks.list.
func (a episodeAPI) listTasks(p schemas.TasksListParams) (*schemas.TasksListResult, error) {
	return a.m.ListTasks(p)
}

// reset is episode.reset; its prompt is native unless the client asks
// for another style: an MCP client calls the tools natively.
func (a episodeAPI) reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error) {
	if p.PromptStyle == "" {
		p.PromptStyle = schemas.PromptStyleNative
	}
	return a.m.Reset(ctx, p)
}

// draining is the error a reset would get from a draining server, or nil.
func (a episodeAPI) draining() error { return a.m.DrainError() }

// step is episode.step with one tool call: it waits for the episode's
// earlier steps, as the native protocol's steps do.
func (a episodeAPI) step(ctx context.Context, id string, act schemas.Action) (*schemas.StepResult, error) {
	return a.m.Step(ctx, schemas.StepParams{EpisodeID: id, Action: act})
}

// close is episode.close: an episode that has not ended is recorded as
// no_submit; an ended one's summary is returned again.
func (a episodeAPI) close(ctx context.Context, id string) (*schemas.CloseResult, error) {
	return a.m.Close(ctx, id)
}

// reward is the episode's reward so far: a live episode's from its
// trajectory, an ended one's summary (what episode.close returns).
func (a episodeAPI) reward(ctx context.Context, id string) (*Reward, error) {
	snap, err := a.m.Get(id)
	if err != nil {
		return nil, err
	}
	t, err := snap.Trajectory()
	if err != nil {
		return nil, err
	}
	if t.Outcome == "" {
		return &Reward{EpisodeID: id, Live: true, TotalReward: t.TotalReward, Turns: len(t.Steps), MaxTurns: t.MaxTurns}, nil
	}
	sum, err := a.m.Close(ctx, id) // ended: returns the summary, changes nothing
	if err != nil {
		return nil, fmt.Errorf("episode %s: %w", id, err)
	}
	return &Reward{EpisodeID: id, Outcome: sum.Outcome, FinalReward: sum.FinalReward, TotalReward: sum.TotalReward,
		Turns: sum.Turns, MaxTurns: t.MaxTurns, RewardComponents: sum.RewardComponents}, nil
}
