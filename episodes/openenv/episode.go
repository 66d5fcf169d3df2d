package openenv

import (
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// episode is what this package keeps of a live episode: enough to answer
// state and list_tools without asking the Manager. A WebSocket's episode
// is touched by its reader only; an HTTP one by any request, hence the
// mutex.
type episode struct {
	id       string
	taskID   string
	maxTurns int
	tools    []schemas.Tool

	mu       sync.Mutex
	turn     int
	outcome  string
	done     bool
	total    float64
	lastUsed time.Time // HTTP episodes: when a request last used it
}

// newEpisode is the episode a reset started.
func newEpisode(r *schemas.ResetResult, now time.Time) *episode {
	return &episode{id: r.EpisodeID, taskID: r.Task.TaskID, maxTurns: r.MaxTurns, tools: r.Tools, lastUsed: now}
}

// advance takes in a step's result.
func (e *episode) advance(r *schemas.StepResult) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.turn = r.Info.Turn
	e.total += r.Reward
	if r.Terminated || r.Truncated {
		e.done, e.outcome = true, r.Info.Outcome
	}
}

// ended reports whether the episode has ended.
func (e *episode) ended() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.done
}

// touch records a use at now, and reports when it was used before.
func (e *episode) touch(now time.Time) time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	last := e.lastUsed
	e.lastUsed = now
	return last
}

// state is the episode's State.
func (e *episode) state() State {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := e.id
	return State{EpisodeID: &id, StepCount: e.turn, TaskID: e.taskID, Turn: e.turn, TurnsLeft: e.maxTurns - e.turn,
		MaxTurns: e.maxTurns, Outcome: e.outcome, Done: e.done, TotalReward: e.total}
}

// stateOfRecord is the State of an episode this package does not hold
// (one another surface started, or one that ended), from its record.
func stateOfRecord(t *schemas.Trajectory) State {
	id := t.EpisodeID
	turn := 0
	if n := len(t.Steps); n > 0 {
		turn = t.Steps[n-1].Turn
	}
	return State{EpisodeID: &id, StepCount: turn, TaskID: t.Task.TaskID, Turn: turn, TurnsLeft: t.MaxTurns - turn,
		MaxTurns: t.MaxTurns, Outcome: t.Outcome, Done: t.Outcome != "", TotalReward: t.TotalReward}
}
