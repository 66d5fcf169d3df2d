// Package progress tells standard error how far a command's run has got:
// a bar redrawn on a terminal, or, in a log or a pipe, plain lines that
// wait for a quiet spell (QuietFor) so that short runs leave no noise. It
// takes whether its writer is a terminal from the caller; stdlib only.
package progress

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// QuietFor is how long a run in a log or pipe goes before its progress is
// written.
const QuietFor = 3 * time.Second

// Bar shows a run of known length: a bar redrawn when its percentage
// changes on a terminal; elsewhere, once the run has taken Quiet, a plain
// line at each tenth of the work.
type Bar struct {
	w     io.Writer // the terminal; nil when not one
	plain io.Writer // the log or pipe, when not a terminal
	label string
	shown int // the last percentage drawn, -1 before the first
	start time.Time
	tenth int // the last tenth written as a plain line
	// Quiet is how long plain lines wait; NewBar sets QuietFor.
	Quiet time.Duration
}

// NewBar shows the progress of label's run on w, a terminal when
// terminal is set.
func NewBar(w io.Writer, terminal bool, label string) *Bar {
	p := &Bar{label: label, shown: -1, start: time.Now(), Quiet: QuietFor}
	if terminal {
		p.w = w
	} else {
		p.plain = w
	}
	return p
}

// Terminal reports whether the bar draws on a terminal.
func (p *Bar) Terminal() bool { return p.w != nil }

// Update draws the bar when the percentage changed, or writes a plain
// line at each tenth once the run has taken Quiet. Calls are serialized
// by the caller.
func (p *Bar) Update(done, total int) {
	if total == 0 {
		return
	}
	if p.w == nil {
		if t := done * 10 / total; p.plain != nil && t > p.tenth && time.Since(p.start) >= p.Quiet {
			p.tenth = t
			fmt.Fprintf(p.plain, "%s %d/%d\n", p.label, done, total)
		}
		return
	}
	pct := done * 100 / total
	if pct == p.shown {
		return
	}
	p.shown = pct
	const width = 30
	fill := done * width / total
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% %d/%d", p.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), pct, done, total)
}

// Finish ends the bar's line.
func (p *Bar) Finish() {
	if p.w != nil && p.shown >= 0 {
		fmt.Fprintln(p.w)
	}
}

// CountEvery is how many items apart a Counter writes its lines.
const CountEvery = 10000

// Counter shows a run of unknown length: a line at every CountEvery
// items once the run has taken Quiet.
type Counter struct {
	w     io.Writer
	label string // the command
	what  string // what is counted
	start time.Time
	// Quiet is how long lines wait; NewCounter sets QuietFor.
	Quiet time.Duration
}

// NewCounter counts label's items (what they are, in words) on w.
func NewCounter(w io.Writer, label, what string) *Counter {
	return &Counter{w: w, label: label, what: what, start: time.Now(), Quiet: QuietFor}
}

// Update is told the count so far, after each item.
func (p *Counter) Update(n int) {
	if n%CountEvery == 0 && time.Since(p.start) >= p.Quiet {
		fmt.Fprintf(p.w, "%s: %d %s\n", p.label, n, p.what)
	}
}
