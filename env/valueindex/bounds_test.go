package valueindex

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// longQuery is "Jane Austen" followed by distinct words up to n bytes.
func longQuery(n int) string {
	var b strings.Builder
	b.WriteString("Jane Austen")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, " %c%dq", 'a'+i%26, i)
	}
	return b.String()
}

// allocated is the bytes the Go heap handed out while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLongQueryIsCut checks that a query of megabytes, far past what
// search_values takes, costs a search no more than a short one would:
// the searcher reads only its first env.MaxValueQueryChars characters
// and makes at most maxQueryWords words and maxQueryGrams trigrams.
func TestLongQueryIsCut(t *testing.T) {
	ds, cat := demoDataset(t)
	s := newStore(t, t.TempDir(), nil)
	search(t, s, ds, cat, "library", env.ValueQuery{Query: "Leeds", Limit: 5}) // builds the index
	q := env.ValueQuery{Query: longQuery(4 << 20), Limit: 5}
	var m *env.ValueMatches
	got := allocated(func() { m = search(t, s, ds, cat, "library", q) })
	const bound = 8 << 20
	if got > bound {
		t.Errorf("a %d-byte query allocated %d bytes, want at most %d", len(q.Query), got, bound)
	}
	if len(m.Matches) == 0 || m.Matches[0].Value != "Jane Austen" {
		t.Errorf("matches %+v, want Jane Austen first (the query's start is kept)", m.Matches)
	}
}

// TestQueryTermsAreBounded checks words and grams against their bounds.
func TestQueryTermsAreBounded(t *testing.T) {
	ws := words(longQuery(env.MaxValueQueryChars))
	if len(ws) != maxQueryWords || ws[0] != "jane" || ws[1] != "austen" {
		t.Errorf("words = %d %q..., want %d starting jane austen", len(ws), ws[:min(len(ws), 3)], maxQueryWords)
	}
	if gs := grams(ws); len(gs) != maxQueryGrams {
		t.Errorf("grams = %d, want %d", len(gs), maxQueryGrams)
	}
	if ws := words("ann Ann ANN bob"); len(ws) != 2 {
		t.Errorf("words of a repeated word = %q, want ann and bob once each", ws)
	}
	if got := cut("Zoë Zoë", 3); got != "Zoë" {
		t.Errorf("cut = %q, want Zoë", got)
	}
}
