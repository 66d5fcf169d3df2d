package episodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/sqlgym/sqlgym/schemas"
)

// StepTicket is a step's place in its episode's queue, taken when the
// request arrives so that steps of one episode run in arrival order.
type StepTicket struct {
	s *Session
	t ticket
}

// Enqueue takes a place for a step of the episode. It fails with
// episode-not-found, episode-ended or episode-busy at once.
func (m *Manager) Enqueue(episodeID string) (*StepTicket, error) {
	s, err := m.session(episodeID)
	if err != nil {
		return nil, err
	}
	t, err := s.queue.enqueue(m.cfg.StepQueue)
	switch err {
	case nil:
		return &StepTicket{s: s, t: t}, nil
	case ErrBusy:
		return nil, fmt.Errorf("%w: episode %s already has %d steps waiting; wait for their replies",
			ErrBusy, episodeID, m.cfg.StepQueue)
	}
	return nil, fmt.Errorf("%w: no live episode %q (it may have expired)", ErrNotFound, episodeID)
}

// Step runs one action once its ticket's turn has come.
func (m *Manager) Step(ctx context.Context, st *StepTicket, a schemas.Action) (*schemas.StepResult, error) {
	return m.StepWith(ctx, st, a, nil)
}

// StepWith is Step with the usage the client reported (nil for none),
// recorded with the step and counted for the reward's length term.
func (m *Manager) StepWith(ctx context.Context, st *StepTicket, a schemas.Action, usage *schemas.Usage) (*schemas.StepResult, error) {
	return m.StepParams(ctx, st, schemas.StepParams{Action: a, Usage: usage})
}

// StepParams is Step with everything episode.step's params carry beside
// the action (its EpisodeID is the ticket's): the usage and the finish
// reason, recorded with the step. An action whose message is malformed
// is a *schemas.Error of code CodeInvalidParams, and costs no turn.
func (m *Manager) StepParams(ctx context.Context, st *StepTicket, p schemas.StepParams) (*schemas.StepResult, error) {
	if err := st.t.wait(ctx); err != nil {
		return nil, err
	}
	defer st.t.release()
	if e := CheckStepParams(&p); e != nil {
		return nil, e
	}
	m.metrics.stepsRunning.Inc()
	defer m.metrics.stepsRunning.Dec()
	defer func() { st.s.lastActive.Store(m.now().UnixNano()) }() // the idle clock runs from the step's end
	start := m.now()
	room, err := m.reserveStep(st.s, p.Action)
	if err != nil {
		return nil, err
	}
	res, traj, err := st.s.step(ctx, m, &p)
	m.settleStep(st.s, room) // before finish gives the episode's bytes back
	if traj != nil {
		// The episode ended: it leaves the live set even when a write
		// failed, and the first failure is the one reported.
		err = errors.Join(err, m.finish(ctx, st.s, traj))
	}
	if err != nil {
		return nil, err
	}
	m.metrics.stepped(res.Info.Tool, m.now().Sub(start))
	return &res, nil
}

// EnqueueClose takes a close's place in the episode's queue; a close is
// never refused for a full queue. The dispatcher takes it when the request
// arrives, like a step's, so that a close sent before a step runs before
// it. It returns nil when the episode is not live.
func (m *Manager) EnqueueClose(id string) *StepTicket {
	s, err := m.session(id)
	if err != nil {
		return nil
	}
	t, err := s.queue.enqueue(math.MaxInt)
	if err != nil {
		return nil // expired meanwhile
	}
	return &StepTicket{s: s, t: t}
}

// Close ends an episode (recording it as no_submit if it had not ended)
// and returns its summary, once the steps already queued have run.
// Closing an ended episode returns its summary again.
func (m *Manager) Close(ctx context.Context, id string) (*schemas.CloseResult, error) {
	return m.CloseQueued(ctx, id, m.EnqueueClose(id))
}

// CloseQueued is Close with its place in the queue already taken (nil:
// the episode was not live).
func (m *Manager) CloseQueued(ctx context.Context, id string, ct *StepTicket) (*schemas.CloseResult, error) {
	if ct != nil {
		if err := ct.t.wait(ctx); err != nil {
			return nil, err
		}
		defer ct.t.release()
		if t := ct.s.end(schemas.OutcomeNoSubmit, m.now()); t != nil {
			if err := m.finish(ctx, ct.s, t); err != nil {
				return nil, err
			}
		}
	}
	if e := m.recentEntry(id); e != nil {
		return e.summary, nil
	}
	return nil, m.notFound(id)
}

// notFound is the error for an id no live or recent episode has: one
// that ran before the server restarted, or ended longer ago than it
// remembers, is in the trajectory store.
func (m *Manager) notFound(id string) error {
	return fmt.Errorf("%w: no live or recent episode %q; an episode that ended before this server started, "+
		"or longer ago than --recent-episodes and --recent-bytes remember, is read from the trajectory store: %s",
		ErrNotFound, id, m.cfg.TrajectoryStore)
}

// Get returns the trajectory of a live or recently ended episode.
func (m *Manager) Get(id string) (*schemas.Trajectory, error) {
	raw, t, err := m.get(id)
	if err != nil || t != nil {
		return t, err
	}
	t = new(schemas.Trajectory)
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, fmt.Errorf("episode %s: read its kept trajectory: %w", id, err)
	}
	return t, nil
}

// GetJSON is Get's trajectory as JSON, as episode.get sends it. A
// recently ended episode's is the encoding kept since its end, so it is
// neither decoded nor encoded again.
func (m *Manager) GetJSON(id string) (json.RawMessage, error) {
	raw, t, err := m.get(id)
	if err != nil || raw != nil {
		return raw, err
	}
	return schemas.Marshal(t)
}

// get returns a live episode's trajectory, or a recently ended one's
// JSON.
func (m *Manager) get(id string) (json.RawMessage, *schemas.Trajectory, error) {
	m.mu.Lock()
	s, ok := m.live[id]
	m.mu.Unlock()
	if ok {
		t := s.snapshot()
		return nil, &t, nil
	}
	m.mu.Lock()
	e := m.recent.get(id)
	var enc []byte // never changed once kept: read after the lock
	if e != nil {
		enc = e.enc
	}
	m.mu.Unlock()
	switch {
	case e == nil:
		return nil, nil, m.notFound(id)
	case enc == nil:
		return nil, nil, fmt.Errorf("%w: episode %s ended (%s) and its record is no longer held in memory "+
			"(the server's --recent-episodes and --recent-bytes); read it from the trajectory store: %s",
			ErrNotFound, id, e.summary.Outcome, m.cfg.TrajectoryStore)
	}
	return enc, nil, nil
}

// recentEntry returns what is remembered of an ended episode, or nil.
func (m *Manager) recentEntry(id string) *recentEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.recent.get(id)
}

// summary is the close result of an ended trajectory.
func summary(t *schemas.Trajectory) *schemas.CloseResult {
	comps := map[string]float64{}
	for _, st := range t.Steps {
		for k, v := range st.RewardComponents {
			comps[k] += v
		}
	}
	for k, v := range t.CloseComponents {
		comps[k] += v
	}
	return &schemas.CloseResult{
		EpisodeID: t.EpisodeID, Outcome: t.Outcome, FinalReward: t.FinalReward,
		TotalReward: t.TotalReward, Turns: len(t.Steps), RewardComponents: comps,
	}
}

// Abandon gives up the ticket's place in its episode's queue, for a call
// that will not run. A nil ticket holds nothing.
func (st *StepTicket) Abandon() {
	if st != nil {
		st.t.abandon()
	}
}
