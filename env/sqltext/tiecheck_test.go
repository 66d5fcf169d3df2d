package sqltext_test

import (
	"fmt"
	"slices"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// sameFunc reports whether two key tuples tie, as the engine compares them.
type sameFunc func(a, b []any) bool

// keyOf is the tuple of a probe row's ORDER BY values.
func keyOf(p sqltext.Probe, row []any) []any {
	k := make([]any, len(p.KeyCols))
	for i, c := range p.KeyCols {
		k[i] = row[c]
	}
	return k
}

// ties says where rows tie in a window: how many right answers there are.
type ties int

// The kinds of ties, each including the one before.
const (
	noTies ties = iota // one right answer, in one order
	within             // rows tie inside the window only: one set of rows, in more than one order
	atCut              // rows tie across a window's end: more than one set of rows
)

// tieCheck checks that rows, what the statement (or its tie-break)
// returned, are a right answer by what its probe read (probe, run with
// extra rows past the window): the rows of the probe's window, up to the
// order of rows whose keys tie; at the window's ends, any of the rows tied
// with those kept. It reports where rows tie.
func tieCheck(p sqltext.Probe, probe, rows [][]any, extra int64, same sameFunc) (ties, error) {
	w := p.Window
	start, end := int(min(w.Offset, int64(len(probe)))), len(probe)
	if w.HasLimit {
		end = int(min(int64(start)+w.Limit, int64(end)))
	}
	if len(rows) != end-start {
		return noTies, fmt.Errorf("%d rows, the probe's window holds %d", len(rows), end-start)
	}
	cut := w.HasLimit && int64(len(probe)) == w.Offset+w.Limit+extra
	found := noTies
	for i := start; i < end; {
		a, b := tieRun(p, probe, i, same)
		j := min(b, end)
		got, want := render(rows[i-start:j-start]), own(p, probe[i:j])
		switch {
		case a == i && b == j && !bagEqual(got, want):
			return found, fmt.Errorf("rows %d-%d: %v, want %v in any order", i-start, j-start, got, want)
		case a < i || b > j:
			if b == len(probe) && cut {
				return found, fmt.Errorf("rows %d-%d tie past the probe's %d extra rows", i-start, j-start, extra)
			}
			if !subBag(got, own(p, probe[a:b])) {
				return found, fmt.Errorf("rows %d-%d: %v, not among the tied %v", i-start, j-start, got, own(p, probe[a:b]))
			}
		}
		switch {
		case a < i || b > j:
			found = atCut
		case j-i > 1:
			found = max(found, within)
		}
		i = j
	}
	return found, nil
}

// tieRun returns the run [a, b) of probe rows tied with row i.
func tieRun(p sqltext.Probe, probe [][]any, i int, same sameFunc) (a, b int) {
	k := keyOf(p, probe[i])
	a, b = i, i+1
	for a > 0 && same(keyOf(p, probe[a-1]), k) {
		a--
	}
	for b < len(probe) && same(keyOf(p, probe[b]), k) {
		b++
	}
	return a, b
}

// render writes each row as text, to compare rows as values.
func render(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%#v", r)
	}
	return out
}

// own is the probe rows without the probe's added columns, rendered.
func own(p sqltext.Probe, probe [][]any) []string {
	rows := make([][]any, len(probe))
	for i, r := range probe {
		rows[i] = r[p.Added:]
	}
	return render(rows)
}

// bagEqual reports whether a and b hold the same rows as many times each.
func bagEqual(a, b []string) bool {
	return len(a) == len(b) && subBag(a, b)
}

// subBag reports whether every row of a is in b, as many times at least.
func subBag(a, b []string) bool {
	left := map[string]int{}
	for _, r := range b {
		left[r]++
	}
	for _, r := range a {
		if left[r] == 0 {
			return false
		}
		left[r]--
	}
	return true
}

// exactly reports whether rows are the own rows of the probe's window,
// in the same order.
func exactly(p sqltext.Probe, probe, rows [][]any) bool {
	start := int(min(p.Window.Offset, int64(len(probe))))
	return slices.Equal(render(rows), own(p, probe[start:min(start+len(rows), len(probe))]))
}
