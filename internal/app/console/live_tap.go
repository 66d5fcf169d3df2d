package console

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// This file is the console's one hook into the episode server: it sees
// every reset, step and end on their way to the trajectory store, by
// wrapping the store's Writer, and counts them for the live page.

// tapWriter records through the inner Writer, then counts the event.
type tapWriter struct {
	inner trajlog.Writer
	live  *Live
}

// Begin records the episode and counts it in flight.
func (w *tapWriter) Begin(ctx context.Context, t *schemas.Trajectory) error {
	err := w.inner.Begin(ctx, t)
	if err == nil {
		w.live.begin(t.EpisodeID, t.Tags)
	}
	return err
}

// Step records the step and counts it with its latency.
func (w *tapWriter) Step(ctx context.Context, episodeID string, s *schemas.StepRecord) error {
	err := w.inner.Step(ctx, episodeID, s)
	if err == nil {
		w.live.step(episodeID, s.ElapsedMS)
	}
	return err
}

// End records how the episode ended and counts its outcome and reward.
func (w *tapWriter) End(ctx context.Context, t *schemas.Trajectory) error {
	err := w.inner.End(ctx, t)
	w.live.end(t.EpisodeID, t.Outcome, t.TotalReward)
	if err == nil && w.live.onEnd != nil {
		w.live.onEnd(t)
	}
	return err
}

// Close closes the inner Writer.
func (w *tapWriter) Close() error { return w.inner.Close() }

// Episodes reads the inner store, when it is a Reader too.
func (w *tapWriter) Episodes(ctx context.Context, f trajlog.Filter, fn func(*trajlog.Record) error) error {
	rd, ok := w.inner.(trajlog.Reader)
	if !ok {
		return fmt.Errorf("the trajectory store %T cannot be read back", w.inner)
	}
	return rd.Episodes(ctx, f, fn)
}

// countedTap is a tapWriter over a store that counts its bytes and
// fsyncs (the file log), which the episode server's metrics read.
type countedTap struct {
	*tapWriter
	counted interface {
		BytesWritten() int64
		Fsyncs() int64
	}
}

// BytesWritten is the inner store's.
func (c countedTap) BytesWritten() int64 { return c.counted.BytesWritten() }

// Fsyncs is the inner store's.
func (c countedTap) Fsyncs() int64 { return c.counted.Fsyncs() }

// Tap returns inner with every event also counted by l. The result is a
// trajlog.Reader when inner is, and keeps inner's BytesWritten and
// Fsyncs when it has both.
func (l *Live) Tap(inner trajlog.Writer) trajlog.Writer {
	w := &tapWriter{inner: inner, live: l}
	if c, ok := inner.(interface {
		BytesWritten() int64
		Fsyncs() int64
	}); ok {
		return countedTap{w, c}
	}
	return w
}
