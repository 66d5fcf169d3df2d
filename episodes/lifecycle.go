package episodes

import (
	"context"
	"errors"
	"math"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// StepTicket is a step's place in its episode's queue, taken when the
// request arrives so that steps of one episode run in arrival order.
type StepTicket struct {
	s      *session
	t      ticket
	replay *schemas.StepResult  // the reply of a step sent again to an ended episode (resend.go); no place taken
	ended  *schemas.CloseResult // a close's: the summary of an episode that ended on another replica
	err    error                // a close's: why the episode can be neither found nor taken over
}

// Enqueue checks a step's params (the one check of them, for every
// surface: InvalidArgument names what was wrong, and tool arguments
// given as none or null become {}) and takes a place for the step of
// the episode p.EpisodeID, to be run with StepQueued on the same params
// (or given up with Abandon). It fails at once with an error of kind
// InvalidArgument, NotFound, Ended or Busy.
func (m *Manager) Enqueue(p *schemas.StepParams) (*StepTicket, error) {
	if err := checkStep(p); err != nil {
		return nil, err
	}
	episodeID := p.EpisodeID
	s, rec, err := m.locate(episodeID)
	if err != nil {
		if res, ok := m.resentEnded(episodeID, p.Turn, rec); ok {
			return &StepTicket{replay: res}, nil
		}
		return nil, err
	}
	t, err := s.queue.enqueue(m.cfg.StepQueue)
	switch err {
	case nil:
		return &StepTicket{s: s, t: t}, nil
	case Busy:
		return nil, stateErrorf(Busy, "episode %s already has %d steps waiting; wait for their replies",
			episodeID, m.cfg.StepQueue)
	}
	return nil, stateErrorf(NotFound, "no live episode %q (it may have expired)", episodeID)
}

// Step runs one step of the episode p.EpisodeID: it takes the step's
// place in the episode's queue and runs it once the steps before it have
// run. p carries everything episode.step's params carry: the action, and
// the usage and finish reason recorded with the step (the usage also
// counted for the reward's length term). A step whose params are
// malformed (Enqueue) is an InvalidArgument, runs nothing and costs no
// turn.
func (m *Manager) Step(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error) {
	st, err := m.Enqueue(&p)
	if err != nil {
		return nil, err
	}
	return m.StepQueued(ctx, st, p)
}

// StepQueued is Step with its place in the queue already taken by
// Enqueue, on the params Enqueue checked: a transport takes the place
// when the request arrives, so that steps of one episode run in the order
// they arrived. It gives the place up however it ends.
func (m *Manager) StepQueued(ctx context.Context, st *StepTicket, p schemas.StepParams) (*schemas.StepResult, error) {
	if st.replay != nil {
		return st.replay, nil
	}
	if err := st.t.wait(ctx); err != nil {
		return nil, err
	}
	defer st.t.release()
	if st.s.gone.Load() {
		return nil, elsewhere(st.s.id, "this server handed it back")
	}
	if res, done, err := st.s.resent(p.Turn); done {
		return res, err
	}
	m.metrics.stepsRunning.Inc()
	defer m.metrics.stepsRunning.Dec()
	defer func() { st.s.lastActive.Store(m.now().UnixNano()) }() // the idle clock runs from the step's end
	start := m.now()
	room, err := m.reserveStep(st.s, p.Action)
	if err != nil {
		return nil, err
	}
	res, traj, err := st.s.step(ctx, &p)
	m.settleStep(st.s, room) // before finish gives the episode's bytes back
	if traj != nil {
		// The episode ended: it leaves the live set even when a write
		// failed, and the first failure is the one reported.
		err = errors.Join(err, m.finish(ctx, st.s, traj))
	}
	if errors.Is(err, trajlog.ErrMoved) {
		m.evict(st.s)
		return nil, elsewhere(st.s.id, "another replica took it over")
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
	s, rec, err := m.locate(id)
	switch {
	case rec != nil:
		return &StepTicket{ended: summary(&rec.Trajectory)}
	case KindOf(err) == Elsewhere:
		return &StepTicket{err: err}
	case err != nil:
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

// CloseQueued is Close with its place in the queue already taken by
// EnqueueClose (nil: the episode was not live).
func (m *Manager) CloseQueued(ctx context.Context, id string, ct *StepTicket) (*schemas.CloseResult, error) {
	switch {
	case ct != nil && ct.ended != nil:
		return ct.ended, nil
	case ct != nil && ct.err != nil:
		return nil, ct.err
	}
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
	return stateErrorf(NotFound, "no live or recent episode %q; an episode that ended before this server started, "+
		"or longer ago than --recent-episodes and --recent-bytes remember, is read from the trajectory store: %s",
		id, m.cfg.TrajectoryStore)
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
	if st != nil && st.s != nil {
		st.t.abandon()
	}
}
