package filelog

import (
	"fmt"
	"slices"
	"strings"
)

// SegmentDamage is what a read found wrong with one segment: its damaged
// lines, the bytes its index records that are gone, and the episodes
// that lost a line to them. A torn last line of the segment being
// written is not damage (see ReadStats.TornTail).
type SegmentDamage struct {
	Segment string // file name
	Offset  int64  // byte offset of the first damaged line (or of the end, for a segment cut short)
	Line    int64  // its line number, from 1
	// Lines is how many of the lines written are damaged or gone: the
	// damaged lines read, corrected by the line count of the index (damage
	// that wipes out newlines merges lines; a cut takes whole lines away).
	Lines   int64
	Bytes   int64  // bytes of the damaged lines read
	Missing int64  // bytes the index records past the end of the file: the segment was cut short
	Reason  string // what was wrong with the first damaged line, or the missing bytes
	// Episodes are the ids of the episodes that lost a line to the
	// damage, sorted: read from the damaged bytes, or known from what the
	// log shows next (a step or end whose begin is gone, an end that
	// counts more steps than were read, an episode that never ends).
	Episodes []string
	// Unidentified counts the episodes that began in the damaged or
	// missing part and left no line that names them (from the index's
	// count of begins).
	Unidentified int
	// Uncounted: the segment has no index written before the damage, so
	// lost lines and episodes could not be counted against it; there may
	// be more than Lines and Episodes say.
	Uncounted bool
}

// String describes the damage on one line.
func (d *SegmentDamage) String() string { return d.describe(-1) }

// describe is String with at most maxIDs episode ids (all when negative).
func (d *SegmentDamage) describe(maxIDs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s damaged at byte %d (line %d): %s", d.Segment, plural(d.Lines, "line"), d.Offset, d.Line, d.Reason)
	if d.Missing > 0 && !strings.HasPrefix(d.Reason, "cut short") {
		fmt.Fprintf(&b, "; cut short, %d bytes missing", d.Missing)
	}
	b.WriteString("; episodes: ")
	b.WriteString(d.episodeList(maxIDs))
	return b.String()
}

// episodeList names the episodes touched, "unknown" when none can be.
func (d *SegmentDamage) episodeList(maxIDs int) string {
	ids := d.Episodes
	more := 0
	if maxIDs >= 0 && len(ids) > maxIDs {
		ids, more = ids[:maxIDs], len(ids)-maxIDs
	}
	parts := slices.Clone(ids)
	if more > 0 {
		parts = append(parts, fmt.Sprintf("%d more", more))
	}
	switch {
	case d.Unidentified > 0:
		parts = append(parts, fmt.Sprintf("%d unknown (begun in the damaged part)", d.Unidentified))
	case d.Uncounted:
		parts = append(parts, "perhaps others (unknown: no index to count against)")
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, ", ")
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// DamageSummary totals damage over segments.
type DamageSummary struct {
	Segments     int   // damaged segments
	Lines        int64 // lines damaged or gone
	Episodes     int   // episodes named as touched
	Unidentified int   // more episodes touched whose ids are unknown
}

// SummarizeDamage totals ds.
func SummarizeDamage(ds []SegmentDamage) DamageSummary {
	var s DamageSummary
	for i := range ds {
		s.Segments++
		s.Lines += ds[i].Lines
		s.Episodes += len(ds[i].Episodes)
		s.Unidentified += ds[i].Unidentified
	}
	return s
}

// String is the summary as a phrase.
func (s DamageSummary) String() string {
	str := fmt.Sprintf("%s, %s, %s touched", plural(int64(s.Segments), "segment"), plural(s.Lines, "line"),
		plural(int64(s.Episodes), "episode"))
	if s.Unidentified > 0 {
		str += fmt.Sprintf(" (and %d whose ids are unknown)", s.Unidentified)
	}
	return str
}

// DamageReport is a report of ds for people: a line of totals, then a
// line per damaged segment naming at most maxIDs episodes (all when
// negative).
func DamageReport(ds []SegmentDamage, maxIDs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the trajectory log is damaged: %s\n", SummarizeDamage(ds))
	for i := range ds {
		fmt.Fprintf(&b, "  %s\n", ds[i].describe(maxIDs))
	}
	return b.String()
}
