package reward

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// blur says where a tolerance is more than exact equality: a pair of
// columns (one of the answer's, one of the prediction's) blurs when some
// number of the one equals a different number of the other under it.
// Through columns that do not blur, tolerant matching is exact matching.
type blur struct {
	m     *tieMatch
	gnums map[int][]int32 // per answer column, its distinct numbers
	pnums map[int][]int32 // per prediction column, its distinct numbers
	pairs map[[2]int]bool // per (answer column, prediction column), whether it blurs
}

func newBlur(m *tieMatch) *blur {
	return &blur{m: m, gnums: map[int][]int32{}, pnums: map[int][]int32{}, pairs: map[[2]int]bool{}}
}

// columns returns, for each pair (gcols[i], pcols[i]), whether it blurs;
// nil when none does.
func (b *blur) columns(gcols, pcols []int) []bool {
	var out []bool
	for i := range gcols {
		if b.pair(gcols[i], pcols[i]) {
			if out == nil {
				out = make([]bool, len(gcols))
			}
			out[i] = true
		}
	}
	return out
}

// pair reports whether answer column gc and prediction column pc blur.
func (b *blur) pair(gc, pc int) bool {
	key := [2]int{gc, pc}
	if got, ok := b.pairs[key]; ok {
		return got
	}
	if _, ok := b.gnums[gc]; !ok {
		b.gnums[gc] = b.numbers(b.m.g, []int{gc})
	}
	if _, ok := b.pnums[pc]; !ok {
		b.pnums[pc] = b.numbers(b.m.p, []int{pc})
	}
	b.pairs[key] = b.any(b.gnums[gc], b.pnums[pc])
	return b.pairs[key]
}

// any reports whether some number of gn equals a different number of pn
// under the tolerance; both are sorted by value. When the tolerance is 1
// or more, or the work has run out, it does not look, and reports true.
func (b *blur) any(gn, pn []int32) bool {
	in, tol := b.m.in, b.m.tol
	for _, id := range pn {
		x := in.num[id]
		d, ok := reach(x, tol.tol)
		switch {
		case tol.tol >= 1 || !b.m.work.spend(1):
			return true
		case !ok:
			continue // NaN and the infinities equal only themselves
		}
		lo := sort.Search(len(gn), func(i int) bool { return in.num[gn[i]] >= x-d })
		for i := lo; i < len(gn) && in.num[gn[i]] <= x+d; i++ {
			if gn[i] != id && tol.eq(gn[i], id) {
				return true
			}
		}
	}
	return false
}

// numbers returns the distinct numbers in t's columns cols (every column
// when cols is nil), as ids, by value (NaN first, as cmp.Compare orders
// it).
func (b *blur) numbers(t table, cols []int) []int32 {
	seen := map[int32]bool{}
	var out []int32
	for i, id := range t.ids {
		if cols != nil && !slices.Contains(cols, i%t.cols) {
			continue
		}
		if b.m.in.class[id] == classNumber && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	b.m.work.spend(len(t.ids))
	slices.SortFunc(out, func(x, y int32) int { return cmp.Compare(b.m.in.num[x], b.m.in.num[y]) })
	return out
}

// reach bounds how far from x a number equal to it under tol can be:
// |x-y| <= tol, or |x-y| <= tol*max(|x|,|y|) <= tol*(|x|+|x-y|), so
// |x-y| <= tol*|x|/(1-tol) when tol < 1. It is widened a little against
// rounding; ok is false when there is no finite bound (tol >= 1, or x is
// not finite).
func reach(x, tol float64) (d float64, ok bool) {
	if tol >= 1 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	d = max(tol, tol*math.Abs(x)/(1-tol))
	return d * (1 + 1e-6), true
}
