package filelog

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
)

// segDamage is a SegmentDamage being gathered.
type segDamage struct {
	SegmentDamage
	damaged   int64           // damaged lines read
	eps       map[string]bool // episodes touched
	beginLost map[string]bool // of those, the ones whose begin is gone
	idx       *index          // the segment's index, if any (perhaps stale)
	lines     int64           // lines read in the segment, damaged ones included
	begins    int64           // begin lines read in the segment
	anonymous bool            // a damaged line names no episode
}

// opaque reports whether the segment lost lines nobody can name: a
// damaged line with no episode id left, lines gone (cut off, or merged
// by damage that wiped out newlines), or no index to count them against.
func (d *segDamage) opaque() bool {
	return d.anonymous || d.Missing > 0 || d.idx == nil || d.idx.Damaged > 0 || d.idx.Lines > d.lines
}

func newSegDamage(seg string, off, line int64, reason string) *segDamage {
	return &segDamage{SegmentDamage: SegmentDamage{Segment: seg, Offset: off, Line: line, Reason: reason},
		eps: map[string]bool{}, beginLost: map[string]bool{}}
}

// touch names ep as touched; begun says whether its begin was read.
func (d *segDamage) touch(ep string, begun bool) {
	d.eps[ep] = true
	if !begun {
		d.beginLost[ep] = true
	}
}

// finish counts what the index, when there is one written before the
// damage, says was lost, and returns the result.
func (d *segDamage) finish() SegmentDamage {
	out := d.SegmentDamage
	out.Lines = d.damaged
	if x := d.idx; x == nil || x.Damaged > 0 {
		out.Uncounted = true
	} else {
		if lost := x.Lines - d.lines; d.damaged+lost > 0 {
			out.Lines = max(d.damaged+lost, min(d.damaged, 1))
		}
		out.Unidentified = int(max(0, x.Begins-d.begins-int64(len(d.beginLost))))
	}
	out.Episodes = slices.Sorted(maps.Keys(d.eps))
	return out
}

// episodeIDs returns the episode ids a damaged line still shows: the
// values of "ep" and "episode_id" fields whose text is intact.
func episodeIDs(line []byte) []string {
	var ids []string
	for _, key := range []string{`"ep":"`, `"episode_id":"`} {
		rest := line
		for {
			at := bytes.Index(rest, []byte(key))
			if at < 0 {
				break
			}
			rest = rest[at+len(key):]
			end := bytes.IndexByte(rest, '"')
			if end > 0 && end <= 128 && plainID(rest[:end]) && !slices.Contains(ids, string(rest[:end])) {
				ids = append(ids, string(rest[:end]))
			}
		}
	}
	return ids
}

// plainID reports whether b looks like an episode id: printable ASCII
// with no escapes.
func plainID(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// startSegment begins reading a segment.
func (rb *rebuilder) startSegment(name string, x *index, last bool) {
	rb.seg = segRead{name: name, idx: x, last: last}
}

// damagedLine counts a line that failed its checks, whose bytes are raw.
// A torn last line of the last segment with no index is the line being
// written, or one a crash tore (the next start cuts it off): it is
// counted apart, as no damage to what was written.
func (rb *rebuilder) damagedLine(d Damage, raw []byte, torn bool) {
	rb.stats.Damaged++
	rb.report(d)
	if torn && rb.seg.last && rb.seg.idx == nil {
		rb.stats.TornTail++
		rb.seg.torn = true
		return
	}
	cur := rb.seg.cur
	if cur == nil {
		cur = newSegDamage(rb.seg.name, d.Offset, rb.seg.lines, d.Reason)
		rb.seg.cur = cur
		rb.damage = append(rb.damage, cur)
	}
	cur.damaged++
	cur.Bytes += int64(d.Bytes)
	ids := episodeIDs(raw)
	cur.anonymous = cur.anonymous || len(ids) == 0
	for _, ep := range ids {
		_, begun := rb.live[ep]
		if !begun && rb.begunBefore(ep) {
			begun = true // its begin is not in this segment
			rb.beginLostBefore(ep)
		}
		cur.touch(ep, begun)
	}
}

// begunBefore reports whether ep began before the segment being read:
// the index of the segment before lists it as live at its end.
func (rb *rebuilder) begunBefore(ep string) bool {
	return rb.prevIdx != nil && slices.ContainsFunc(rb.prevIdx.LiveAtEnd, func(e liveEntry) bool { return e.Ep == ep })
}

// beginLostBefore notes ep, named by a damaged line of the segment being
// read, as an episode whose begin, in an earlier segment, was not read:
// lost to damage read earlier in the session, unless it is in a segment
// the read skipped.
func (rb *rebuilder) beginLostBefore(ep string) {
	if rb.orphans[ep] || rb.stats.Skipped > 0 && rb.skippedLive[ep] {
		return
	}
	rb.orphans[ep] = true // its later lines need not say so again
	if to := len(rb.damage) - 1; to > rb.session {
		rb.touches = append(rb.touches, touch{ep: ep, from: rb.session, to: to, orphan: true, sure: true})
	}
}

// endSegment checks the segment read against its index: bytes the index
// records past the end of the file were cut off.
func (rb *rebuilder) endSegment() {
	s := &rb.seg
	if x := s.idx; x != nil && x.Bytes > s.size {
		reason := fmt.Sprintf("cut short: %d of the %d bytes its index records are missing", x.Bytes-s.size, x.Bytes)
		switch {
		case s.cur == nil:
			s.cur = newSegDamage(s.name, s.size, s.lines+1, reason)
			rb.damage = append(rb.damage, s.cur)
		case s.cur.damaged == 1 && s.cur.Reason == errTorn.Error():
			s.cur.Reason = reason // the torn line is where the cut fell
		}
		s.cur.Missing = x.Bytes - s.size
	}
	if s.cur != nil {
		s.cur.idx, s.cur.lines, s.cur.begins = s.idx, s.lines, s.begins
	}
	rb.prevIdx = s.idx
}

// damageFound is the damage read, segment by segment.
func (rb *rebuilder) damageFound() []SegmentDamage {
	rb.layTouches()
	out := make([]SegmentDamage, len(rb.damage))
	for i, d := range rb.damage {
		out[i] = d.finish()
	}
	return out
}
