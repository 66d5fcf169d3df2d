package filelog

import (
	"slices"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// touch is an episode that lost a line to one of the damaged segments
// damage[from:to] of a read; which one is decided once the read is done,
// when it is known which segments lost lines nobody can name.
type touch struct {
	ep       string
	from, to int
	orphan   bool // its begin is gone: the latest candidate is the likeliest
	sure     bool // a line is known to be gone (not only an end never read)
	whole    bool // its end line holds the whole record: only the begin is gone
}

// lost notes a live episode that may have lost a line (a step, sure, or
// its end) to the damage read while it was live.
func (rb *rebuilder) lost(ep string, p *pending, sure bool) {
	if p.seen < len(rb.damage) {
		rb.touches = append(rb.touches, touch{ep: ep, from: p.seen, to: len(rb.damage), sure: sure})
	}
}

// orphan notes an event whose begin was not read (end, an end line, or
// nil for a step), at the episode's first such event, unless no damage
// was read in the session or its begin may be in a segment the read
// skipped: a skipped segment holds no event of an episode that passes the
// filter.
func (rb *rebuilder) orphan(ep string, end *event) {
	if rb.session == len(rb.damage) {
		return
	}
	seen := rb.orphans[ep]
	if end != nil {
		delete(rb.orphans, ep)
	} else {
		rb.orphans[ep] = true
	}
	if seen || rb.stats.Skipped > 0 && !rb.beginMayBeLost(ep, end) {
		return
	}
	rb.touches = append(rb.touches, touch{ep: ep, from: rb.session, to: len(rb.damage), orphan: true, sure: true,
		whole: end != nil && end.Traj.Steps != nil})
}

// beginMayBeLost reports, for a read that skipped segments, whether the
// begin of an episode known only by end (nil for a step, which tells
// nothing) may have been lost to damage rather than skipped: a whole end
// record passes the filter; a slim one, whose header is the begin's, did
// not live through the last segment skipped (which lists the episodes
// live at its end).
func (rb *rebuilder) beginMayBeLost(ep string, end *event) bool {
	switch {
	case end == nil:
		return false
	case end.Slim:
		return !rb.skippedLive[ep]
	}
	return rb.pre.Match(&trajlog.Record{Trajectory: *end.Traj, Complete: true})
}

// layTouches lays each touched episode to a damaged segment: none when
// a candidate names it already (its id was read from the damaged bytes);
// else, among the candidates that lost lines nobody can name, the first
// for a live episode and the latest for one whose begin is gone; failing
// those, the same among all candidates, when a line is known to be gone.
func (rb *rebuilder) layTouches() {
	for _, tc := range rb.touches {
		cands := rb.damage[tc.from:tc.to]
		if slices.ContainsFunc(cands, func(d *segDamage) bool { return d.eps[tc.ep] }) {
			continue
		}
		d := pick(cands, tc.orphan, (*segDamage).opaque)
		if d == nil && tc.sure {
			d = pick(cands, tc.orphan, func(*segDamage) bool { return true })
		}
		switch {
		case d == nil:
		case tc.whole:
			d.beginLost[tc.ep] = true
		default:
			d.touch(tc.ep, !tc.orphan)
		}
	}
	rb.touches = nil
}

// pick returns the first (or, latest, the last) of ds that ok accepts.
func pick(ds []*segDamage, latest bool, ok func(*segDamage) bool) *segDamage {
	for i := range ds {
		if latest {
			i = len(ds) - 1 - i
		}
		if ok(ds[i]) {
			return ds[i]
		}
	}
	return nil
}
