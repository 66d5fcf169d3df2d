// Package replay re-runs recorded episodes and re-scores them.
//
// Replay drives a real, in-process episodes.Manager: it resets an episode
// of the recorded task with the recorded turn budget, action format,
// reward spec, tools, prompt style and calls per turn, steps it with each recorded action, and compares what
// comes back with what was recorded, so replay cannot drift from the
// server's own logic.
//
// Rescore recomputes an episode's rewards under another spec without a
// model: the turn kinds are read from the recorded components, and
// submissions are judged again where the new spec needs what the record
// cannot tell (another match mode, a weight the old spec did not pay).
package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// Config configures a Replayer: the same datasets, runner and judge
// settings the server ran with.
type Config struct {
	Datasets []*env.Dataset
	Catalog  *env.Catalog
	Runner   *tools.Runner
	Judge    *judge.Judge
	Workers  int // episodes replayed at once (1)
	// MaxCallsPerTurn is the calls of one step that run, as the server
	// ran them (episodes.DefaultMaxCallsPerTurn), for an episode whose
	// record does not say (one recorded before max_calls_per_turn was
	// kept); a record that says is replayed with its own.
	MaxCallsPerTurn int
}

// Status is how an episode's replay turned out.
type Status string

// Statuses of a replayed episode.
const (
	Reproduced   Status = "reproduced"   // every step and the end came out as recorded
	Diverged     Status = "diverged"     // some step or the end did not
	Unverifiable Status = "unverifiable" // the task or database is missing, or the record is incomplete
)

// Result is one episode's replay.
type Result struct {
	EpisodeID string
	TaskID    string
	Status    Status
	Reason    string // why the episode is unverifiable
	Steps     int    // recorded steps
	Matched   int    // steps whose replay matched the record
	Diffs     []Diff // what differed, in order
}

// Diff is one difference between the record and the replay. Turn 0 is
// the episode itself (its prompt, its end).
type Diff struct {
	Turn     int
	Field    string
	Recorded string
	Replayed string
}

// Replayer replays episodes through its own Manager. It is safe for
// concurrent use.
type Replayer struct {
	mgr     *episodes.Manager
	workers int
}

// New returns a Replayer over the configured datasets.
func New(cfg Config) (*Replayer, error) {
	mgr, err := episodes.New(episodes.Config{
		Datasets: cfg.Datasets, Catalog: cfg.Catalog, Runner: cfg.Runner, Judge: cfg.Judge,
		Reward: schemas.DefaultRewardSpec(), Version: "replay", Tools: tools.AllSet(), // each episode asks for its own
		MaxTurnsLimit: 1 << 20, MaxEpisodes: 1 << 20, IdleTimeout: 24 * time.Hour, MaxCallsPerTurn: cfg.MaxCallsPerTurn,
	})
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return &Replayer{mgr: mgr, workers: max(cfg.Workers, 1)}, nil
}

// Episode replays one recorded episode.
func (r *Replayer) Episode(ctx context.Context, rec *trajlog.Record) *Result {
	res := &Result{EpisodeID: rec.EpisodeID, TaskID: rec.Task.TaskID, Steps: len(rec.Steps)}
	spec, err := json.Marshal(rec.RewardSpec)
	if err != nil {
		return res.unverifiable("reward spec: %v", err)
	}
	reset, err := r.mgr.ResetWith(ctx, schemas.ResetParams{TaskID: rec.Task.TaskID, MaxTurns: new(rec.MaxTurns),
		ActionFormat: rec.ActionFormat, Reward: spec, Tools: tools.Recorded(rec.Tools).Names(), PromptStyle: rec.PromptStyle},
		episodes.ResetOptions{MaxCallsPerTurn: rec.MaxCallsPerTurn})
	if err != nil {
		return res.unverifiable("reset: %v", err)
	}
	id := reset.EpisodeID
	defer r.mgr.Close(context.WithoutCancel(ctx), id) // frees an episode the replay left live
	res.compareMessages(rec.Messages, reset.Messages)
	for i := range rec.Steps {
		if !r.stepOnce(ctx, res, id, &rec.Steps[i]) {
			break
		}
	}
	if res.Status == "" {
		r.compareEnd(ctx, res, rec, id)
	}
	return res.settle(rec)
}

// stepOnce replays one step and compares it; false stops the episode.
func (r *Replayer) stepOnce(ctx context.Context, res *Result, id string, want *schemas.StepRecord) bool {
	if t, err := r.trajectory(id); err == nil && t.EndedAt != nil {
		res.diff(want.Turn, "ended", "a step", "the episode ended at turn "+fmt.Sprint(len(t.Steps)))
		return false
	}
	got, err := r.mgr.Step(ctx, schemas.StepParams{EpisodeID: id, Action: want.Action, Usage: want.Usage, FinishReason: want.FinishReason})
	if err != nil {
		res.unverifiable("step %d: %v", want.Turn, err)
		return false
	}
	if compareStep(res, want, got) {
		res.Matched++
	}
	return true
}

// trajectory is the replayed episode's trajectory as the Manager holds
// it.
func (r *Replayer) trajectory(id string) (*schemas.Trajectory, error) {
	s, err := r.mgr.Get(id)
	if err != nil {
		return nil, err
	}
	return s.Trajectory()
}

func (res *Result) unverifiable(format string, a ...any) *Result {
	res.Status, res.Reason = Unverifiable, fmt.Sprintf(format, a...)
	return res
}

func (res *Result) diff(turn int, field, recorded, replayed string) {
	res.Diffs = append(res.Diffs, Diff{Turn: turn, Field: field, Recorded: recorded, Replayed: replayed})
}

// settle decides the status once every step is compared.
func (res *Result) settle(rec *trajlog.Record) *Result {
	switch {
	case res.Status != "":
	case len(res.Diffs) > 0:
		res.Status = Diverged
	case !rec.Complete:
		res.unverifiable("incomplete: the end was never recorded (%d of %d steps reproduced)", res.Matched, res.Steps)
	default:
		res.Status = Reproduced
	}
	return res
}
