package main

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/transport"
)

// recordBudget bounds the recording of the episodes still live once the
// grace has passed (ended as abandoned), beyond --shutdown-grace.
const recordBudget = 10 * time.Second

// drainPoll is how often a draining server looks whether its last live
// episode has ended.
const drainPoll = 100 * time.Millisecond

// drainer is a server's shutdown: once the signal's context ends
// (SIGTERM, SIGINT) it drains (GET /readyz answers 503, every reset is
// refused with -32006 and its kin on the other surfaces) and goes on
// serving its live episodes' steps until none is live or grace has passed
// since the signal; then it ends the context the server serves under.
type drainer struct {
	serving context.Context // what the server and its surfaces serve under
	stop    context.CancelFunc
	end     time.Time // when the grace ends; set before serving ends
}

// newDrainer returns a drainer whose serving context outlives ctx.
func newDrainer(ctx context.Context) *drainer {
	d := &drainer{}
	d.serving, d.stop = context.WithCancel(context.WithoutCancel(ctx))
	return d
}

// run waits for ctx to end, drains mgr and srv, and ends the serving
// context once no episode is live or the grace has passed (at once
// without o.drain).
func (d *drainer) run(ctx context.Context, mgr *episodes.Manager, srv *transport.Server, o serverOpts, log *zap.Logger) {
	defer d.stop()
	select {
	case <-ctx.Done():
	case <-d.serving.Done():
		return
	}
	d.end = time.Now().Add(o.grace)
	srv.Drain()
	mgr.Drain()
	if err := handBack(mgr, d.end); err != nil {
		log.Error("live episodes not handed back: other replicas take them over once this one's lease expires", zap.Error(err))
	}
	if !o.drain {
		return
	}
	log.Info("draining: new episodes refused, live episodes served until they end or the grace passes",
		zap.Int("live", mgr.LiveEpisodes()), zap.Duration("grace", o.grace))
	waitLive(mgr, d.end)
}

// rest is what is left of the grace once serving has ended, at least a
// second: how long running steps may still take.
func (d *drainer) rest() time.Duration {
	if d.end.IsZero() {
		return time.Second
	}
	return max(time.Until(d.end), time.Second)
}

// waitLive returns once no episode is live, or at end.
func waitLive(mgr *episodes.Manager, end time.Time) {
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	mgr.WaitNoneLive(ctx, drainPoll)
}

// handBack gives a draining replica's live episodes back to the store
// its replicas share (--takeover), once their running steps finish, by
// end; without --takeover it does nothing.
func handBack(mgr *episodes.Manager, end time.Time) error {
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	return mgr.HandBack(ctx)
}
