package main

import (
	"strings"
	"testing"
	"time"
)

// In a log or pipe, a run longer than its quiet spell writes a line at
// each tenth of the work; a shorter one writes nothing.
func TestProgressInAPipe(t *testing.T) {
	for _, tc := range []struct {
		quiet time.Duration
		lines int
	}{{0, 10}, {time.Hour, 0}} {
		var b strings.Builder
		p := newProgress(&b, "eval")
		p.quiet = tc.quiet
		for done := 1; done <= 972; done++ {
			p.update(done, 972)
		}
		p.finish()
		got := strings.Split(strings.TrimSpace(b.String()), "\n")
		if b.Len() == 0 {
			got = nil
		}
		if len(got) != tc.lines || tc.lines > 0 && (got[0] != "eval 98/972" || got[len(got)-1] != "eval 972/972") {
			t.Errorf("quiet %v: wrote %q, want %d lines from eval 98/972 to eval 972/972", tc.quiet, got, tc.lines)
		}
	}
}

// A run of unknown length, past its quiet spell, writes a line at every
// countEvery items; a shorter one writes nothing.
func TestCountProgress(t *testing.T) {
	for _, tc := range []struct {
		quiet time.Duration
		want  string
	}{{0, "export: 10000 episodes read\nexport: 20000 episodes read\n"}, {time.Hour, ""}} {
		var b strings.Builder
		p := newCountProgress(&b, "export", "episodes read")
		p.quiet = tc.quiet
		for n := 1; n <= 25000; n++ {
			p.update(n)
		}
		if b.String() != tc.want {
			t.Errorf("quiet %v: wrote %q, want %q", tc.quiet, b.String(), tc.want)
		}
	}
}
