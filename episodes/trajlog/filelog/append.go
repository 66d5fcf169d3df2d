package filelog

import (
	"context"
	"fmt"
	"sync"

	"github.com/sqlgym/sqlgym/schemas"
)

// Begin records a new episode (t without steps: "steps":[], so that the
// line's record is a trajectory as the published schema describes one).
// It returns once the line is with the operating system: it survives the
// process being killed, and the End of the episode makes it durable.
func (l *Log) Begin(_ context.Context, t *schemas.Trajectory) error {
	b := *t
	b.Steps = []schemas.StepRecord{}
	_, err := l.appendEvent(evBegin, &event{Ev: evBegin, Ep: t.EpisodeID, Traj: &b},
		change{kind: evBegin, ep: t.EpisodeID, startedAt: t.StartedAt, dataset: t.Task.Dataset})
	return err
}

// Step records one step of a live episode. Like Begin, it returns once
// the line is with the operating system.
func (l *Log) Step(_ context.Context, episodeID string, s *schemas.StepRecord) error {
	ev := stepEvents.Get().(*event)
	*ev = event{Ev: evStep, Ep: episodeID, Step: s}
	_, err := l.appendEvent(evStep, ev, change{kind: evStep, ep: episodeID})
	*ev = event{} // the pool keeps no record alive
	stepEvents.Put(ev)
	return err
}

// stepEvents holds the events Step encodes: an event is encoded as soon
// as it is made, so one serves step after step.
var stepEvents = sync.Pool{New: func() any { return new(event) }}

// End records how the episode ended and returns once the line (and so
// every earlier line of the episode) is fsynced under DurabilityEpisode,
// or once it is with the operating system under DurabilityInterval,
// DurabilityNone or NoSync. When the begin and every step were logged,
// the end line is slim: it holds only what the end set (the outcome,
// rewards, end time), and readers take the rest from the begin line, so
// t's header must be the one Begin was given. When some were not (a
// failed Begin or Step), the end line carries the whole record, every
// step included, so that the record on disk is whole either way.
func (l *Log) End(ctx context.Context, t *schemas.Trajectory) error {
	var ev any
	if l.loggedSteps(t.EpisodeID) == len(t.Steps) {
		ev = &slimEvent{Ev: evDone, Ep: t.EpisodeID, Traj: endOf(t), Turns: len(t.Steps)}
	} else {
		e := *t
		if e.Steps == nil {
			e.Steps = []schemas.StepRecord{}
		}
		ev = &event{Ev: evEnd, Ep: t.EpisodeID, Traj: &e, Turns: len(t.Steps)}
	}
	seq, err := l.appendEvent(evEnd, ev,
		change{kind: evEnd, ep: t.EpisodeID, outcome: t.Outcome, startedAt: t.StartedAt, dataset: t.Task.Dataset})
	if err != nil || !l.opts.endWaits() {
		return err
	}
	return l.waitSynced(ctx, seq)
}

// loggedSteps is how many steps of a live episode were logged, -1 when
// its begin was not.
func (l *Log) loggedSteps(ep string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.live[ep]; ok {
		return e.Steps
	}
	return -1
}

// appendEvent encodes ev, an event of kind, into a pooled buffer and
// appends it as a line that makes change c to the segment's summary.
func (l *Log) appendEvent(kind string, ev any, c change) (int64, error) {
	bp := linePool.Get().(*[]byte)
	line, err := appendLine((*bp)[:0], kind, ev)
	seq := int64(0)
	if err == nil {
		seq, err = l.append(line, c) // the line is written (or refused) when append returns
	}
	if cap(line) <= maxPooledLine {
		*bp = line[:0]
		linePool.Put(bp)
	}
	return seq, err
}

// writeLocked hands line to the operating system. A failed write that
// left part of the line behind is cut off, so that nothing is ever
// appended after garbage; when that fails too, the log stops.
func (l *Log) writeLocked(line []byte) (int64, error) {
	n, err := l.seg.f.Write(line)
	if err != nil {
		if n > 0 {
			if terr := l.seg.f.Truncate(l.seg.size); terr != nil {
				l.failed = fmt.Errorf("cut off a torn line: %w", terr)
			}
		}
		return 0, fmt.Errorf("write trajectory: %w", err)
	}
	l.seg.size += int64(n)
	l.written += int64(n)
	l.seg.sum.add(n)
	l.bytes.Add(int64(n))
	l.lines.Add(1)
	l.writes.Add(1)
	return l.written, nil
}

// rotateLocked seals the full segment and starts the next one, which
// carries the live episodes in its summary.
func (l *Log) rotateLocked() error {
	sync := l.opts.syncs()
	if err := l.seg.seal(l.dir, sync); err != nil {
		return err
	}
	if sync {
		l.fsyncs.Add(1)
		l.markSynced(l.written, nil)
	}
	seg, err := createSegment(l.dir, l.seg.n+1, l.live, sync)
	if err != nil {
		return err
	}
	l.seg = seg
	l.rotations.Add(1)
	return nil
}
