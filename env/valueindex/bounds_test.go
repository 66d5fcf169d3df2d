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
	ws, more := words(longQuery(env.MaxValueQueryChars), maxQueryWords)
	if len(ws) != maxQueryWords || !more || ws[0] != "jane" || ws[1] != "austen" {
		t.Errorf("words = %d %q... (more: %v), want %d starting jane austen, and more", len(ws), ws[:min(len(ws), 3)], more, maxQueryWords)
	}
	long, _ := words(randomQuery(1, 40), maxQueryWords)
	if gs, more := grams(long, maxQueryGrams); len(gs) != maxQueryGrams || !more {
		t.Errorf("grams = %d (more: %v), want %d and more", len(gs), more, maxQueryGrams)
	}
	if ws, more := words("ann Ann ANN bob", 2); len(ws) != 2 || more {
		t.Errorf("words of a repeated word = %q (more: %v), want ann and bob once each, nothing more", ws, more)
	}
	if got := cut("Zoë Zoë", 3); got != "Zoë" {
		t.Errorf("cut = %q, want Zoë", got)
	}
}

// TestFold checks that text is lower-cased and its accents stripped, the
// same on the ASCII fast path as on the full one.
func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Zoë Ångström": "zoe angstrom", "MÜNCHEN": "munchen", "São Paulo": "sao paulo",
		"Jane AUSTEN 1775": "jane austen 1775", "": "", "ß": "ß",
	} {
		if got := fold(in); got != want {
			t.Errorf("fold(%q) = %q, want %q", in, got, want)
		}
	}
}
