package dbimport

import (
	"strings"
	"testing"
)

// TestProgressViewLines: in a pipe, a line per database copied and per
// suite carried, and one per tenth of the golds verified.
func TestProgressViewLines(t *testing.T) {
	var b strings.Builder
	p := NewProgressView(&b, false)
	p.Update(Progress{Stage: "copy", Done: 1, Total: 2, Item: "shop"})
	p.Update(Progress{Stage: "copy", Done: 2, Total: 2, Item: "zoo"})
	for i := 1; i <= 20; i++ {
		p.Update(Progress{Stage: "verify", Done: i, Total: 20, Item: "t"})
	}
	p.Update(Progress{Stage: "suites", Done: 1, Total: 1, Item: "shop"})
	p.Finish()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 13 || lines[0] != "copy 1/2: shop" || lines[1] != "copy 2/2: zoo" ||
		lines[2] != "verify 2/20 golds" || lines[11] != "verify 20/20 golds" || lines[12] != "suites 1/1: shop" {
		t.Errorf("lines:\n%s", b.String())
	}
}

// TestProgressViewBars: on a terminal, a bar per stage, each ended on
// its own line when the next stage starts.
func TestProgressViewBars(t *testing.T) {
	var b strings.Builder
	p := NewProgressView(&b, true)
	p.Update(Progress{Stage: "copy", Done: 1, Total: 1, Item: "shop"})
	p.Update(Progress{Stage: "verify", Done: 1, Total: 1, Item: "t"})
	p.Finish()
	want := "\rcopy [==============================] 100% 1/1\n\rverify [==============================] 100% 1/1\n"
	if b.String() != want {
		t.Errorf("the terminal shows\n%q\nwant\n%q", b.String(), want)
	}
}
