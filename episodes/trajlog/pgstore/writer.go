package pgstore

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/schemas"
)

// opKind is what a queued row does.
type opKind int

const (
	opBegin opKind = iota // insert the episode
	opStep                // insert one step
	opEnd                 // upsert the episode with how it ended
)

// op is one row waiting for the flusher.
type op struct {
	kind opKind
	id   string     // episode id
	args []any      // the row's values, encoded by the caller
	done chan error // End's, and every op of a shared store: receives the result of the commit
	// fenced is set by write in a shared store when no row took the op
	// (replica.go): the episode is driven by another replica.
	fenced bool
}

// Begin queues the episode's row. It returns once the row is queued; End
// reports whether it was written.
func (s *Store) Begin(ctx context.Context, t *schemas.Trajectory) error {
	args, err := encodeEpisode(t, false)
	if err != nil {
		return s.fail(t.EpisodeID, fmt.Errorf("pgstore: begin %s: %w", t.EpisodeID, err))
	}
	return s.send(ctx, op{kind: opBegin, id: t.EpisodeID, args: args})
}

// Step queues one step's row. It fails at once if an earlier write of the
// episode failed.
func (s *Store) Step(ctx context.Context, episodeID string, st *schemas.StepRecord) error {
	if err := s.failure(episodeID); err != nil {
		return err
	}
	args, err := encodeStep(episodeID, st)
	if err != nil {
		return s.fail(episodeID, fmt.Errorf("pgstore: step %s: %w", episodeID, err))
	}
	return s.send(ctx, op{kind: opStep, id: episodeID, args: args})
}

// send queues a Begin's or a Step's row; a shared store waits for its
// commit, so that what a replica acknowledges is in the store for the
// others.
func (s *Store) send(ctx context.Context, o op) error {
	if !s.shared() {
		return s.enqueue(ctx, o)
	}
	o.done = make(chan error, 1)
	if err := s.enqueue(ctx, o); err != nil {
		return err
	}
	select {
	case err := <-o.done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("pgstore: write %s: %w", o.id, ctx.Err())
	}
}

// End queues the episode's final row and waits until it, and every row of
// the episode queued before it, is committed. It returns the first error
// any write of the episode met.
func (s *Store) End(ctx context.Context, t *schemas.Trajectory) error {
	if err := s.failure(t.EpisodeID); err != nil {
		s.forget(t.EpisodeID)
		return err
	}
	args, err := encodeEpisode(t, true)
	if err != nil {
		s.forget(t.EpisodeID)
		return fmt.Errorf("pgstore: end %s: %w", t.EpisodeID, err)
	}
	done := make(chan error, 1)
	if err := s.enqueue(ctx, op{kind: opEnd, id: t.EpisodeID, args: args, done: done}); err != nil {
		s.forget(t.EpisodeID)
		return err
	}
	// The flusher forgets the episode once its end is written or failed.
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("pgstore: end %s: %w", t.EpisodeID, ctx.Err())
	}
}

// enqueue hands o to the flusher, waiting for room while ctx allows.
func (s *Store) enqueue(ctx context.Context, o op) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	select {
	case s.ops <- o:
		return nil
	case <-ctx.Done():
		return s.fail(o.id, fmt.Errorf("pgstore: queue full: %w", ctx.Err()))
	}
}

// fail remembers the first error of an episode and returns it.
func (s *Store) fail(id string, err error) error {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	if first, ok := s.failed[id]; ok {
		return first
	}
	s.failed[id] = err
	return err
}

// failure is the first error of an episode's writes, or nil.
func (s *Store) failure(id string) error {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	return s.failed[id]
}

// forget drops what is remembered of an ended episode.
func (s *Store) forget(id string) {
	s.failMu.Lock()
	delete(s.failed, id)
	s.failMu.Unlock()
}
