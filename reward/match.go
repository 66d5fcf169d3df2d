package reward

import (
	"slices"

	"github.com/sqlgym/sqlgym/schemas"
)

// Match reports whether pred equals gold under the spec's match mode.
// ordered says whether row order counts in the spider and tolerant modes
// (the caller passes sqltext.HasOrderBy of the gold SQL); bird ignores it.
// An unknown mode never matches.
func Match(spec schemas.RewardSpec, pred, gold [][]any, ordered bool) bool {
	switch spec.Match {
	case schemas.MatchBird:
		return MatchBird(pred, gold)
	case schemas.MatchSpider:
		return MatchSpider(pred, gold, ordered)
	case schemas.MatchTolerant:
		return MatchTolerant(pred, gold, ordered, spec.FloatTolerance)
	}
	return false
}

// MatchBird is the BIRD leaderboard rule: set(pred) == set(gold) over
// typed rows. Duplicates collapse, row order never counts, column order
// always does, and two empty results match.
func MatchBird(pred, gold [][]any) bool {
	return newBirdGold(gold).match(pred)
}

// MatchSpider is the Spider test-suite rule: pred and gold hold the same
// bag of rows under some permutation of pred's columns, in the same row
// order when ordered is set. Two empty results match; results with
// different row or column counts never do, nor do ragged results (rows of
// different widths), which no engine returns.
func MatchSpider(pred, gold [][]any, ordered bool) bool {
	if len(pred) == 0 && len(gold) == 0 {
		return true
	}
	in := newInterner()
	g, okG := in.intern(gold)
	p, okP := in.intern(pred)
	if !okG || !okP || g.rows != p.rows || g.cols != p.cols {
		return false
	}
	if ordered {
		return sameColumnVectors(g, p)
	}
	return permutedBagMatch(g, p)
}

// sameColumnVectors reports whether the columns of g and p, each read top
// to bottom, are the same multiset: then some column permutation makes the
// two row sequences equal.
func sameColumnVectors(g, p table) bool {
	gk, pk := columnKeys(g, false), columnKeys(p, false)
	slices.Sort(gk)
	slices.Sort(pk)
	return slices.Equal(gk, pk)
}

// columnKeys returns one key per column: its ids top to bottom, or sorted
// when asMultiset is set.
func columnKeys(t table, asMultiset bool) []string {
	keys := make([]string, t.cols)
	col := make([]int32, t.rows)
	var buf []byte
	for c := range t.cols {
		for r := range t.rows {
			col[r] = t.at(r, c)
		}
		if asMultiset {
			slices.Sort(col)
		}
		buf = idsKey(buf[:0], col)
		keys[c] = string(buf)
	}
	return keys
}

// classes numbers the distinct keys of a and b alike: equal keys, equal
// class. It returns the class of each entry of a and of b.
func classes(a, b []string) (ca, cb []int) {
	ids := map[string]int{}
	of := func(keys []string) []int {
		out := make([]int, len(keys))
		for i, k := range keys {
			id, ok := ids[k]
			if !ok {
				id = len(ids)
				ids[k] = id
			}
			out[i] = id
		}
		return out
	}
	return of(a), of(b)
}
