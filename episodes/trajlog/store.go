// Package trajlog stores trajectories: the Writer the episode server
// appends to as episodes happen (a reset, each step, the end), and the
// Reader that rebuilds trajectory records from what was stored, streaming,
// with filters, the Durability a store promises, and TagText, the one rule
// for a tag's value as text. It holds no store: the durable segmented log
// on local disk (trajlog/filelog) and the PostgreSQL store
// (trajlog/pgstore) implement it, and readers (export, replay, rollout,
// reports) need only this package.
package trajlog

import (
	"context"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// Writer records episodes as they happen. Methods are safe for
// concurrent use; events of one episode arrive in order.
type Writer interface {
	// Begin records a new episode: t has no steps and no outcome yet.
	Begin(ctx context.Context, t *schemas.Trajectory) error
	// Step records one step of a live episode.
	Step(ctx context.Context, episodeID string, s *schemas.StepRecord) error
	// End records how the episode ended: t is the whole trajectory, its
	// header (every field but the outcome, rewards, end time, close
	// components and steps) the one Begin was given. When End returns
	// nil, the episode (Begin, every Step, End) is durable.
	End(ctx context.Context, t *schemas.Trajectory) error
	// Close flushes and releases the writer.
	Close() error
}

// Record is a trajectory rebuilt from storage.
type Record struct {
	schemas.Trajectory
	// Complete is false for an episode whose end was never recorded (the
	// server was killed mid-episode), or one of whose steps was lost to a
	// damaged line: it holds the steps that were.
	Complete bool
}

// Reader rebuilds trajectory records from storage.
type Reader interface {
	// Episodes calls fn with each stored episode that passes f, in the
	// order the store keeps them (the log: the order episodes ended),
	// until fn returns an error (which Episodes returns).
	Episodes(ctx context.Context, f Filter, fn func(*Record) error) error
}

// Filter selects episodes. The zero Filter selects every complete
// episode.
type Filter struct {
	Dataset    string            // task.dataset
	TaskID     string            // task.task_id
	Outcome    string            // outcome
	MinReward  *float64          // total_reward >= MinReward
	MaxReward  *float64          // total_reward <= MaxReward
	Tags       map[string]string // each tag's JSON value, as text (strings unquoted), equals
	Since      time.Time         // started_at >= Since
	Until      time.Time         // started_at < Until
	Incomplete bool              // also episodes whose end was never recorded

	// ExcludeTags leaves out every episode that has any of these tags,
	// compared as Tags are: a JSON string unquoted, any other value as
	// its JSON text as recorded (so Value "true" matches the JSON true and
	// the string "true"). An episode without the key is kept.
	ExcludeTags []Tag
}

// Tag is one tag of an episode: its key, and its value as text.
type Tag struct {
	Key, Value string
}
