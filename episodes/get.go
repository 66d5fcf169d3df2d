package episodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// Snapshot is an episode's trajectory as Get found it: a copy of a live
// episode's, or the JSON an ended episode's has been kept as since its
// end. It gives either form without decoding or encoding where it need
// not.
type Snapshot struct {
	id  string
	t   *schemas.Trajectory // a live episode's; nil for an ended one
	raw json.RawMessage     // an ended episode's, as schemas.Marshal encoded it
}

// Get returns the trajectory of a live or recently ended episode. An
// episode the Manager no longer remembers, or whose trajectory it no
// longer holds, is an error of kind NotFound that points to the
// trajectory store.
func (m *Manager) Get(id string) (*Snapshot, error) {
	m.mu.Lock()
	s, ok := m.live[id]
	m.mu.Unlock()
	if ok {
		t := s.snapshot()
		return &Snapshot{id: id, t: &t}, nil
	}
	m.mu.Lock()
	e := m.recent.get(id)
	var enc []byte // never changed once kept: read after the lock
	if e != nil {
		enc = e.enc
	}
	m.mu.Unlock()
	switch {
	case e == nil && m.cfg.Shared != nil:
		return m.getShared(id)
	case e == nil:
		return nil, m.notFound(id)
	case enc == nil:
		return nil, stateErrorf(NotFound, "episode %s ended (%s) and its record is no longer held in memory "+
			"(the server's --recent-episodes and --recent-bytes); read it from the trajectory store: %s",
			id, e.summary.Outcome, m.cfg.TrajectoryStore)
	}
	return &Snapshot{id: id, raw: enc}, nil
}

// Trajectory returns the trajectory, decoded from its JSON for an ended
// episode.
func (s *Snapshot) Trajectory() (*schemas.Trajectory, error) {
	if s.t != nil {
		return s.t, nil
	}
	t := new(schemas.Trajectory)
	if err := json.Unmarshal(s.raw, t); err != nil {
		return nil, fmt.Errorf("episode %s: read its kept trajectory: %w", s.id, err)
	}
	return t, nil
}

// JSON returns the trajectory's JSON (schemas.Marshal's), as
// episode.get sends it: an ended episode's is the encoding kept since its
// end, neither decoded nor encoded again.
func (s *Snapshot) JSON() (json.RawMessage, error) {
	if s.raw != nil {
		return s.raw, nil
	}
	return schemas.Marshal(s.t)
}

// getShared reads an episode this replica does not hold from the shared
// store, claiming nothing: every step another replica acknowledged is
// there.
func (m *Manager) getShared(id string) (*Snapshot, error) {
	ctx, cancel := context.WithTimeout(context.Background(), takeoverTimeout)
	defer cancel()
	r, err := m.cfg.Shared.Load(ctx, id)
	if errors.Is(err, trajlog.ErrNoEpisode) {
		return nil, stateErrorf(NotFound, "no episode %q in the server's memory or in the trajectory store", id)
	}
	if err != nil {
		return nil, err
	}
	return &Snapshot{id: id, t: &r.Trajectory}, nil
}
