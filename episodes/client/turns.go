package client

import (
	"context"
	"errors"
	"sync"

	"github.com/sqlgym/sqlgym/schemas"
)

// maxTrackedEpisodes bounds the episodes whose next turn a Resumer keeps;
// past it the one started first is forgotten (its steps go without a turn).
const maxTrackedEpisodes = 1 << 16

// turns is the turn of each episode's next step, as the client knows it:
// 1 after a reset, info.turn+1 after each step answered; an episode that
// ended or was closed is forgotten.
type turns struct {
	mu    sync.Mutex
	next  map[string]int
	order []string // episodes in the order they started, for the bound
}

func newTurns() turns { return turns{next: map[string]int{}} }

// started notes a reset's episode.
func (t *turns) started(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.next) >= maxTrackedEpisodes || len(t.order) > 2*len(t.next)+1024 {
		t.trim()
	}
	t.next[id] = 1
	t.order = append(t.order, id)
}

// trim drops the places of episodes forgotten, and forgets the
// episodes started first until the map is under its bound.
func (t *turns) trim() {
	kept := t.order[:0]
	for _, id := range t.order {
		if _, ok := t.next[id]; !ok {
			continue
		}
		if len(t.next) >= maxTrackedEpisodes {
			delete(t.next, id)
			continue
		}
		kept = append(kept, id)
	}
	t.order = kept
}

// take is the turn of a step about to be sent (0: unknown, sent without).
func (t *turns) take(id string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.next[id]
	if n > 0 {
		t.next[id] = n + 1
	}
	return n
}

// answered notes a step's outcome: its reply moves the next turn past
// it, or forgets an ended episode; a JSON-RPC error gives its turn back
// unless a later step took the next one.
func (t *turns) answered(id string, turn int, r *schemas.StepResult, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.next[id]
	switch {
	case !ok:
	case err == nil && (r.Terminated || r.Truncated):
		delete(t.next, id)
	case err == nil:
		t.next[id] = max(n, r.Info.Turn+1)
	case isCode(err, schemas.CodeEpisodeEnded) || isCode(err, schemas.CodeEpisodeNotFound):
		delete(t.next, id)
	case turn > 0 && n == turn+1:
		t.next[id] = turn
	}
}

// isCode says whether err is the JSON-RPC error code.
func isCode(err error, code int) bool {
	var rpc *schemas.Error
	return errors.As(err, &rpc) && rpc.Code == code
}

// forget drops a closed episode.
func (t *turns) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.next, id)
}

// Info calls server.info.
func (r *Resumer) Info(ctx context.Context) (*schemas.ServerInfo, error) {
	var out schemas.ServerInfo
	return &out, r.Call(ctx, schemas.MethodServerInfo, struct{}{}, &out)
}

// Reset calls episode.reset; its episode's first step is turn 1.
func (r *Resumer) Reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error) {
	var out schemas.ResetResult
	if err := r.Call(ctx, schemas.MethodReset, p, &out); err != nil {
		return nil, err
	}
	r.turns.started(out.EpisodeID)
	return &out, nil
}

// StepParams calls episode.step with every param, the turn filled in
// when the caller left it 0 and the episode's start was seen here.
func (r *Resumer) StepParams(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error) {
	if p.Turn == 0 {
		p.Turn = r.turns.take(p.EpisodeID)
	}
	var out schemas.StepResult
	err := r.Call(ctx, schemas.MethodStep, p, &out)
	r.turns.answered(p.EpisodeID, p.Turn, &out, err)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// CloseEpisode calls episode.close.
func (r *Resumer) CloseEpisode(ctx context.Context, episodeID string) (*schemas.CloseResult, error) {
	var out schemas.CloseResult
	if err := r.Call(ctx, schemas.MethodClose, schemas.CloseParams{EpisodeID: episodeID}, &out); err != nil {
		return nil, err
	}
	r.turns.forget(episodeID)
	return &out, nil
}

// Episode calls episode.get.
func (r *Resumer) Episode(ctx context.Context, episodeID string) (*schemas.Trajectory, error) {
	var out schemas.Trajectory
	return &out, r.Call(ctx, schemas.MethodEpisodeGet, schemas.CloseParams{EpisodeID: episodeID}, &out)
}
