package main

import (
	"fmt"
	"io"
	"time"
)

// countProgress tells stderr how far a run of unknown length has got: a
// line at every countEvery items once the run has taken quietFor, so
// that short runs leave no noise.
type countProgress struct {
	w     io.Writer
	label string // the command
	what  string // what is counted
	start time.Time
	quiet time.Duration
}

// countEvery is how many items apart countProgress writes its lines.
const countEvery = 10000

func newCountProgress(stderr io.Writer, label, what string) *countProgress {
	return &countProgress{w: stderr, label: label, what: what, start: time.Now(), quiet: quietFor}
}

// update is told the count so far, after each item.
func (p *countProgress) update(n int) {
	if n%countEvery == 0 && time.Since(p.start) >= p.quiet {
		fmt.Fprintf(p.w, "%s: %d %s\n", p.label, n, p.what)
	}
}
