package episodes

import (
	"cmp"
	"context"
	"errors"
	"math"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// Takeover: with a store shared by replicas (Config.Shared), a call for
// an episode this replica does not hold is served by taking the episode
// over from the store: the store holds its every acknowledged step, so
// the session rebuilt from them (its ledger, the calls it has seen, its
// tokens) answers as the replica that began it would have.

// takeoverTimeout bounds one takeover: the claim and the read of the
// episode's record.
const takeoverTimeout = 10 * time.Second

// claimFor returns the live episode id, taken over from the shared store
// when this replica does not hold it. rec is the ended episode's record
// when the store says it has ended (err of kind Ended). Only a Manager
// with a shared store (Config.Shared) takes over: its callers check.
func (m *Manager) claimFor(id string) (s *session, rec *trajlog.Record, err error) {
	if m.Draining() {
		return nil, nil, elsewhere(id, "this server is draining")
	}
	wait, mine := m.claimSlot(id)
	if !mine {
		<-wait
		if s, err := m.find(id); err == nil {
			return s, nil, nil
		}
		return m.claimFor(id) // the other claim failed: try again, which says why
	}
	defer m.claimDone(id, wait)
	ctx, cancel := context.WithTimeout(context.Background(), takeoverTimeout)
	defer cancel()
	start := m.now()
	r, err := m.cfg.Shared.Claim(ctx, id)
	switch {
	case errors.Is(err, trajlog.ErrEnded):
		return nil, r, stateErrorf(Ended, "%s", id)
	case errors.Is(err, trajlog.ErrHeld):
		return nil, nil, elsewhere(id, "another live replica drives it")
	case errors.Is(err, trajlog.ErrNoEpisode):
		return nil, nil, stateErrorf(NotFound, "no episode %q in the server's memory or in the trajectory store", id)
	case err != nil:
		return nil, nil, err
	}
	if s, err = m.resume(ctx, r); err != nil {
		return nil, nil, err
	}
	m.metrics.tookOver(m.now().Sub(start))
	m.cfg.Logger.Info("episode taken over", zap.String("episode", id), zap.Int("turns", len(r.Steps)))
	if t := s.endRecorded(); t != nil {
		// Its replica recorded the step that ended it and died before
		// recording the end: record it now, as that replica would have.
		if err := m.finish(ctx, s, t); err != nil {
			return nil, nil, err
		}
		return nil, &trajlog.Record{Trajectory: *t, Complete: true}, stateErrorf(Ended, "%s", id)
	}
	return s, nil, nil
}

// endRecorded ends a session restored from a record whose last step
// ended the episode, with that step's outcome at its time; nil when the
// episode goes on.
func (s *session) endRecorded() *schemas.Trajectory {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.traj.Steps)
	if n == 0 || s.traj.Steps[n-1].Outcome == "" {
		return nil
	}
	last := s.traj.Steps[n-1]
	return s.endLocked(last.Outcome, last.At)
}

// elsewhere is the error of a call for an episode another replica
// drives.
func elsewhere(id, why string) error {
	return stateErrorf(Elsewhere, "episode %s is not driven here (%s): send the call again through the load balancer", id, why)
}

// claimSlot makes this call the one that claims id, or returns the
// channel that the claim under way closes when done.
func (m *Manager) claimSlot(id string) (chan struct{}, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.claiming[id]; ok {
		return c, false
	}
	c := make(chan struct{})
	m.claiming[id] = c
	return c, true
}

// claimDone ends the claim of id.
func (m *Manager) claimDone(id string, c chan struct{}) {
	m.mu.Lock()
	delete(m.claiming, id)
	m.mu.Unlock()
	close(c)
}

// resume rebuilds a live episode from its record and makes it live here.
func (m *Manager) resume(ctx context.Context, r *trajlog.Record) (*session, error) {
	e, err := m.specOfRecord(ctx, &r.Trajectory)
	if err != nil {
		return nil, err
	}
	s := newSession(m.deps, r.EpisodeID, e)
	s.restore(&r.Trajectory)
	n := resetBytes(r.Messages, r.Tags)
	for i := range r.Steps {
		n += recordBytes(&r.Steps[i])
	}
	if err := m.admitBytes(s, n); err != nil {
		return nil, err
	}
	if err := m.admit(ctx, s); err != nil {
		m.releaseBytes(s)
		return nil, err
	}
	return s, nil
}

// specOfRecord is what a recorded episode's header says of it, checked
// against what this replica serves.
func (m *Manager) specOfRecord(ctx context.Context, t *schemas.Trajectory) (episodeSpec, error) {
	task, ds, err := m.pickTask(schemas.ResetParams{TaskID: t.Task.TaskID})
	if err != nil {
		return episodeSpec{}, err
	}
	set, err := m.episodeTools(ds, t.Tools)
	if err != nil {
		return episodeSpec{}, err
	}
	db, err := m.cfg.Catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		return episodeSpec{}, m.openFailed(ctx, ds, task, err)
	}
	style := t.PromptStyle
	if style == "" {
		style = schemas.PromptStyleText
	}
	return episodeSpec{task: task, ds: ds, db: db, reward: specOf{spec: t.RewardSpec, hash: t.RewardSpecHash},
		format: t.ActionFormat, maxTurns: t.MaxTurns, tools: set, prompt: t.Messages, tags: t.Tags, style: style,
		maxCalls: cmp.Or(t.MaxCallsPerTurn, m.cfg.MaxCallsPerTurn)}, nil
}

// toolCall is a recorded call as the tools decode it.
func toolCall(c schemas.CallRecord) tools.Call {
	return tools.Call{Name: c.Tool, Arguments: c.Arguments}
}

// restore sets a new session to where the recorded trajectory t left
// it: t's header and steps, the ledger paid again call by call, the
// calls seen, the tokens reported.
func (s *session) restore(t *schemas.Trajectory) {
	s.traj = *t
	s.traj.Steps = append(make([]schemas.StepRecord, 0, max(len(t.Steps), min(s.maxTurns, firstSteps))), t.Steps...)
	for i := range t.Steps {
		st := &t.Steps[i]
		s.tokens = reward.AddTokens(s.tokens, st.Usage)
		calls := st.CallList()
		if len(st.Calls) == 0 { // one call, or none: the step's components are its
			s.ledger.Repay(st.RewardComponents)
		}
		for _, c := range calls {
			if len(st.Calls) > 0 && c.RewardComponents != nil {
				s.ledger.Repay(c.RewardComponents)
			}
			if c.Error != nil && c.Error.Code == schemas.ErrCodeNotRun {
				continue
			}
			if inv, err := s.tools.Decode(toolCall(c)); err == nil {
				s.seen[inv.Key()] = true
			}
		}
	}
	s.traj.TotalReward = s.ledger.Total()
}

// locate returns the live episode id: held here, or taken over from the
// shared store. An episode that ended on another replica comes back as
// its record with an error of kind Ended.
func (m *Manager) locate(id string) (*session, *trajlog.Record, error) {
	s, err := m.find(id)
	if err == nil || KindOf(err) != NotFound {
		return s, nil, err
	}
	if m.cfg.Shared == nil {
		return nil, nil, err
	}
	return m.claimFor(id)
}

// evict drops a live episode this replica no longer drives, recording
// nothing: the store holds what it did, and the replica that drives it
// now records the rest.
func (m *Manager) evict(s *session) {
	if s.gone.Swap(true) {
		return
	}
	m.mu.Lock()
	if m.live[s.id] != s {
		m.mu.Unlock()
		return
	}
	delete(m.live, s.id)
	m.metrics.liveEpisodes.Set(float64(len(m.live)))
	m.mu.Unlock()
	s.share.Release()
	m.releaseBytes(s)
}

// orphansPerSweep bounds the orphans one sweep (Expire) ends.
const orphansPerSweep = 64

// endOrphans ends, as abandoned, episodes of the shared store that no
// live replica drives and no client has stepped for the idle timeout: a
// dead replica's episodes whose clients did not come back (a reset whose
// reply was lost). Each is taken over, then ended as the idle sweep ends
// an episode of its own.
func (m *Manager) endOrphans(ctx context.Context) {
	if m.cfg.Shared == nil || m.Draining() {
		return
	}
	ids, err := m.cfg.Shared.Orphans(ctx, m.cfg.IdleTimeout, orphansPerSweep)
	if err != nil {
		m.cfg.Logger.Warn("orphaned episodes not listed", zap.Error(err))
		return
	}
	for _, id := range ids {
		s, _, err := m.claimFor(id)
		if err != nil {
			continue // ended, or claimed by another replica meanwhile
		}
		m.abandon(ctx, s)
	}
}

// HandBack gives every live episode back to the shared store, for the
// other replicas to take over at once: a draining replica calls it once
// its resets are refused (Drain). Each episode's steps already running or
// waiting finish first (within ctx); later calls for them are refused
// with Elsewhere. Without a shared store it does nothing.
func (m *Manager) HandBack(ctx context.Context) error {
	if m.cfg.Shared == nil {
		return nil
	}
	for _, s := range m.liveNow() {
		m.handBack(ctx, s)
	}
	return m.cfg.Shared.HandBack(ctx)
}

// handBack evicts s once the steps before it have run.
func (m *Manager) handBack(ctx context.Context, s *session) {
	st, err := s.queue.enqueue(math.MaxInt)
	if err != nil {
		return // ended meanwhile
	}
	if err := st.wait(ctx); err != nil {
		return // its store row is handed back all the same; a late write of it is fenced
	}
	m.evict(s)
	st.release()
}
