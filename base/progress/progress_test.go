package progress

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
		p := NewBar(&b, false, "eval")
		p.Quiet = tc.quiet
		for done := 1; done <= 972; done++ {
			p.Update(done, 972)
		}
		p.Finish()
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
// CountEvery items; a shorter one writes nothing.
func TestCountProgress(t *testing.T) {
	for _, tc := range []struct {
		quiet time.Duration
		want  string
	}{{0, "export: 10000 episodes read\nexport: 20000 episodes read\n"}, {time.Hour, ""}} {
		var b strings.Builder
		p := NewCounter(&b, "export", "episodes read")
		p.Quiet = tc.quiet
		for n := 1; n <= 25000; n++ {
			p.Update(n)
		}
		if b.String() != tc.want {
			t.Errorf("quiet %v: wrote %q, want %q", tc.quiet, b.String(), tc.want)
		}
	}
}

// On a terminal the bar is redrawn each time its percentage changes,
// and at once, and ends its line.
func TestBarOnATerminal(t *testing.T) {
	var b strings.Builder
	p := NewBar(&b, true, "check")
	if !p.Terminal() {
		t.Fatal("a bar told it draws on a terminal says it does not")
	}
	for done := 1; done <= 4; done++ {
		p.Update(done, 4)
		p.Update(done, 4) // the same percentage: not drawn again
	}
	p.Finish()
	want := "\rcheck [=======                       ]  25% 1/4" +
		"\rcheck [===============               ]  50% 2/4" +
		"\rcheck [======================        ]  75% 3/4" +
		"\rcheck [==============================] 100% 4/4\n"
	if b.String() != want {
		t.Errorf("the terminal shows\n%q\nwant\n%q", b.String(), want)
	}
}
