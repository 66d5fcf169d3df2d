package filelog

import (
	"cmp"
	"slices"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// rebuilder turns events back into records, holding only the episodes
// that are live at the point read, and gathers the damage read with the
// episodes it touched.
type rebuilder struct {
	f       *trajlog.Filter
	pre     trajlog.Filter // the part of f a begin event can answer
	fn      func(*trajlog.Record) error
	report  func(Damage)
	keep    bool // hand records over; false counts only (Verify)
	live    map[string]*pending
	seq     int64
	stats   ReadStats
	damage  []*segDamage    // in the order read
	session int             // damage read before the last open event, which no live episode can have lost a line to
	orphans map[string]bool // episodes whose begin is gone, seen since the last open event
	touches []touch         // episodes that lost a line, laid to a damaged segment once the read is done
	seg     segRead         // the segment being read
	prevIdx *index          // the index of the segment before the one being read, if it had one
	// skippedLive are the episodes live at the end of the last segment
	// skipped since the last open event: those whose begin may be in a
	// skipped segment.
	skippedLive map[string]bool
}

// segRead is what was read of one segment.
type segRead struct {
	name                string
	idx                 *index // its index, if any (perhaps stale)
	last                bool   // the last segment: perhaps being written
	torn                bool   // its last line is torn, and it has no index (TornTail)
	size, lines         int64
	begins, steps, ends int64 // good lines of each kind
	cur                 *segDamage
}

// pending is an episode begun and not yet ended.
type pending struct {
	rec   trajlog.Record
	seq   int64 // order of its begin
	skip  bool  // its begin already fails the filter: keep no steps
	steps int   // step lines read
	seen  int   // damage read before its begin: any read later may have taken its lines
}

func newRebuilder(f *trajlog.Filter, fn func(*trajlog.Record) error, report func(Damage)) *rebuilder {
	pre := trajlog.Filter{Dataset: f.Dataset, TaskID: f.TaskID, Tags: f.Tags, ExcludeTags: f.ExcludeTags, Since: f.Since, Until: f.Until}
	return &rebuilder{f: f, pre: pre, fn: fn, report: report, keep: true, live: map[string]*pending{},
		orphans: map[string]bool{}, skippedLive: map[string]bool{}}
}

// apply folds one event in, handing over the episodes it completes.
func (rb *rebuilder) apply(ev *event) error {
	switch ev.Ev {
	case evOpen:
		return rb.flush()
	case evBegin:
		rb.seg.begins++
		p := &pending{seq: rb.seq, rec: trajlog.Record{Trajectory: *ev.Traj}, seen: len(rb.damage)}
		rb.seq++
		p.rec.Steps = nil
		p.skip = !rb.keep || !rb.pre.Match(&trajlog.Record{Trajectory: p.rec.Trajectory, Complete: true})
		rb.live[ev.Ep] = p
	case evStep:
		rb.seg.steps++
		p, ok := rb.live[ev.Ep]
		if !ok {
			rb.stats.Orphans++
			rb.orphan(ev.Ep, nil)
			return nil
		}
		p.steps++
		if !p.skip {
			p.rec.Steps = append(p.rec.Steps, *ev.Step)
		}
	case evEnd:
		rb.seg.ends++
		return rb.end(ev)
	}
	return nil
}

// end completes an episode. An end line that carries its steps stands on
// its own; one that does not takes the steps read since the begin (and a
// slim one its header from the begin too), and when a step line was lost
// to damage the record is not whole: it is handed over as incomplete. An
// end without steps whose begin was not read is an orphan, never handed
// over.
func (rb *rebuilder) end(ev *event) error {
	p, ok := rb.live[ev.Ep]
	delete(rb.live, ev.Ep)
	if !ok {
		rb.orphan(ev.Ep, ev)
		if ev.Traj.Steps == nil {
			rb.stats.Orphans++
			return nil
		}
	}
	if ok && ev.Traj.Steps == nil && p.steps != ev.Turns && (!p.skip || rb.stats.Skipped == 0) {
		rb.lost(ev.Ep, p, true)
	}
	if ok && p.skip {
		rb.stats.Complete++
		return nil
	}
	rec := &trajlog.Record{Trajectory: *ev.Traj, Complete: true}
	if ev.Slim {
		rec.Trajectory = withBegin(&p.rec.Trajectory, ev.Traj)
	}
	if ev.Traj.Steps == nil {
		rec.Steps = p.rec.Steps
		rec.Complete = len(rec.Steps) == ev.Turns
	}
	if rec.Complete {
		rb.stats.Complete++
	} else {
		rb.stats.Incomplete++
	}
	return rb.emit(rec)
}

// flush hands over every live episode as incomplete, in the order they
// began: the log has shown they will never end (a new writer session, or
// the end of the log).
func (rb *rebuilder) flush() error {
	ps := make([]*pending, 0, len(rb.live))
	for ep, p := range rb.live {
		rb.lost(ep, p, false) // its end may be in damage read since it began
		ps = append(ps, p)
	}
	clear(rb.live)
	clear(rb.orphans)
	clear(rb.skippedLive)
	rb.session = len(rb.damage)
	slices.SortFunc(ps, func(a, b *pending) int { return cmp.Compare(a.seq, b.seq) })
	rb.stats.Incomplete += int64(len(ps))
	if !rb.f.Incomplete {
		return nil
	}
	for _, p := range ps {
		if p.skip {
			continue
		}
		p.rec.TotalReward = 0
		for _, s := range p.rec.Steps {
			p.rec.TotalReward += s.Reward
		}
		if err := rb.emit(&p.rec); err != nil {
			return err
		}
	}
	return nil
}

// skip passes over a segment whose index x proves it holds nothing the
// read wants, noting the episodes live at its end.
func (rb *rebuilder) skip(x *index) error {
	if x.SessionStart {
		if err := rb.flush(); err != nil {
			return err
		}
	}
	rb.stats.Skipped++
	rb.prevIdx = x
	clear(rb.skippedLive)
	for _, e := range x.LiveAtEnd {
		rb.skippedLive[e.Ep] = true
	}
	return nil
}

func (rb *rebuilder) emit(r *trajlog.Record) error {
	if r.Steps == nil {
		r.Steps = []schemas.StepRecord{}
	}
	if !rb.f.Match(r) {
		return nil
	}
	rb.stats.Matched++
	return rb.fn(r)
}
