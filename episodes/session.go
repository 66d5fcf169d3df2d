package episodes

import (
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/base/fairshare"
	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// session is one episode: its task, its database, its reward ledger and
// the trajectory so far. Its steps run one at a time through its queue.
type session struct {
	id       string
	deps     *deps // what every episode's steps use
	task     *env.Task
	ds       *env.Dataset // the task's dataset
	db       env.DB
	dialect  env.Dialect // the dataset's, which db speaks
	dbKey    string      // dataset/db_id, the judge's cache key
	maxTurns int
	format   string
	spec     schemas.RewardSpec
	tools    tools.Set // the tools offered
	maxCalls int       // calls of one turn that run
	queue    *stepQueue
	holder   string // whom its statements run for on the engines (holderOf)

	lastActive atomic.Int64      // unix nanoseconds of the last step's end
	gone       atomic.Bool       // handed back or taken over elsewhere: no step of it runs here (takeover.go)
	share      *fairshare.Ticket // its room in --max-episodes (fair.go); set by admit before it is live

	// Only the step holding the queue's current ticket touches these
	// (and, once no step can run, whoever ends the episode).
	ledger *reward.Ledger
	seen   map[string]bool // normalized calls made so far, for turn.repeat
	kept   int64           // bytes the episode keeps, counted in the Manager's kept
	added  int64           // bytes the running step added (its record), for the Manager's kept

	mu     sync.Mutex // guards traj, ended and tokens
	traj   schemas.Trajectory
	ended  bool
	tokens int // completion tokens the client reported, over the steps so far
}

// specOf is an episode's reward spec with its reward.Hash.
type specOf struct {
	spec schemas.RewardSpec
	hash string
}

// episodeSpec is what a reset decided of a new episode.
type episodeSpec struct {
	task     *env.Task
	ds       *env.Dataset
	db       env.DB
	reward   specOf
	format   string
	maxTurns int
	tools    tools.Set
	prompt   []schemas.Message
	tags     json.RawMessage
	style    string // the prompt's style (schemas.PromptStyle*)
	maxCalls int    // calls of one turn that run
}

// newSession builds the episode whole, from its spec and the
// dependencies every episode shares; its trajectory starts empty, at
// d's now.
func newSession(d *deps, id string, e episodeSpec) *session {
	now := d.now()
	s := &session{
		id: id, deps: d, task: e.task, ds: e.ds, db: e.db, dialect: e.ds.Dialect, dbKey: e.ds.DBKey(e.task.DBID),
		maxTurns: e.maxTurns, format: e.format, spec: e.reward.spec, tools: e.tools, maxCalls: e.maxCalls, queue: newStepQueue(),
		holder: holderOf(id, e.tags), ledger: reward.NewLedger(e.reward.spec), seen: map[string]bool{},
	}
	s.traj = schemas.Trajectory{
		EpisodeID: id, Task: e.task.View(e.ds.Dialect), Tags: e.tags,
		RewardSpec: e.reward.spec, RewardSpecHash: e.reward.hash, ActionFormat: e.format,
		MaxTurns: e.maxTurns, MaxCallsPerTurn: e.maxCalls, Messages: e.prompt, StartedAt: now, Steps: []schemas.StepRecord{},
		ServerVersion: d.version,
	}
	if e.style != schemas.PromptStyleText {
		s.traj.PromptStyle = e.style
	}
	if !e.tools.IsDefault() {
		s.traj.Tools = e.tools.Names()
	}
	s.lastActive.Store(now.UnixNano())
	return s
}

// turn returns how many steps the episode has taken.
func (s *session) turn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.traj.Steps)
}

// addTokens counts a step's reported completion tokens and returns the
// episode's total so far.
func (s *session) addTokens(u *schemas.Usage) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = reward.AddTokens(s.tokens, u)
	return s.tokens
}

// isEnded reports whether the episode has ended.
func (s *session) isEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// firstSteps caps the room the first step makes for the steps to come:
// the episode's turn budget, up to this many (the default budget).
const firstSteps = 8

// appendStep records a step, and ends the episode with outcome if it is
// not empty. It returns the record as the trajectory holds it (no one
// changes a recorded step, so it may be read without the lock), and the
// trajectory's copy when the episode ended.
func (s *session) appendStep(rec schemas.StepRecord, outcome string, now time.Time) (*schemas.StepRecord, *schemas.Trajectory) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cap(s.traj.Steps) == 0 {
		s.traj.Steps = make([]schemas.StepRecord, 0, max(1, min(s.maxTurns, firstSteps)))
	}
	s.traj.Steps = append(s.traj.Steps, rec)
	s.traj.TotalReward = s.ledger.Total()
	held := &s.traj.Steps[len(s.traj.Steps)-1]
	s.added += recordBytes(held)
	if outcome == "" {
		return held, nil
	}
	return held, s.endLocked(outcome, now)
}

// end ends an episode that has not ended yet, with outcome and the final
// component the ledger pays for it; nil if it had already ended.
func (s *session) end(outcome string, now time.Time) *schemas.Trajectory {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil
	}
	s.traj.CloseComponents, _ = s.ledger.Step(reward.TurnNone, &reward.Final{Outcome: outcome, CompletionTokens: s.tokens})
	s.traj.TotalReward = s.ledger.Total()
	return s.endLocked(outcome, now)
}

func (s *session) endLocked(outcome string, now time.Time) *schemas.Trajectory {
	s.ended = true
	s.traj.Outcome = outcome
	s.traj.EndedAt = &now
	s.traj.FinalReward = s.ledger.Final()
	t := s.snapshotLocked()
	return &t
}

// snapshot returns a copy of the trajectory so far. Its steps share the
// session's: recorded steps never change, and later steps are written
// past the end of the copy's steps, which cannot grow into them.
func (s *session) snapshot() schemas.Trajectory {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

func (s *session) snapshotLocked() schemas.Trajectory {
	t := s.traj
	t.Steps = slices.Clip(s.traj.Steps) // [] on the wire, never null: newSession sets it
	return t
}
