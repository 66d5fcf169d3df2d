package filelog

import (
	"fmt"
	"strings"
)

// Text renders the verification as sqlgym log verify prints it: a line
// per segment (ok, DAMAGED, INDEX for a faulty index), then a summary.
func (rep *VerifyReport) Text() string {
	var b strings.Builder
	for _, c := range rep.Segments {
		switch {
		case c.Damage != nil:
			fmt.Fprintf(&b, "DAMAGED %s\n", c.Damage)
		default:
			fmt.Fprintf(&b, "ok      %s (%d bytes, %d lines%s)\n", c.Segment, c.Bytes, c.Lines, segmentNotes(&c))
		}
		if c.IndexFault != "" {
			fmt.Fprintf(&b, "INDEX   %s: faulty index: %s\n", c.Segment, c.IndexFault)
		}
	}
	fmt.Fprintf(&b, "log verify: %d segments, %d lines, %d episodes: ", len(rep.Segments), rep.Lines, rep.Episodes)
	if rep.Clean() {
		b.WriteString("clean\n")
		return b.String()
	}
	ds := rep.Damage()
	sum := SummarizeDamage(ds)
	fmt.Fprintf(&b, "%d damaged segments (%d lines; %d episodes touched", sum.Segments, sum.Lines, sum.Episodes)
	if sum.Unidentified > 0 {
		fmt.Fprintf(&b, ", and %d whose ids are unknown", sum.Unidentified)
	}
	fmt.Fprintf(&b, "), %d faulty indexes\n", rep.IndexFaults())
	b.WriteString("the readers skip the damaged lines and read every episode on undamaged ones (replay, rescore and export exit 3 unless --allow-damage)\n")
	return b.String()
}

// segmentNotes explains what is normal but worth saying about a segment.
func segmentNotes(c *SegmentCheck) string {
	var notes []string
	if c.NoIndex {
		notes = append(notes, "no index: being written, or left by a crash; the next server start builds it")
	}
	if c.TornTail {
		notes = append(notes, "last line torn: being written, or torn by a crash; the next server start cuts it off")
	}
	if len(notes) == 0 {
		return ""
	}
	return "; " + strings.Join(notes, "; ")
}
