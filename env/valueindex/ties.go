package valueindex

import (
	"container/heap"
	"hash/fnv"
	"slices"
)

// Values held by as many rows tie in frequency; a column cut among them
// keeps those of least key: a hash of the text first, so the values kept
// are an unbiased sample of the tie (not the first in text order, which
// would keep every early id of a column of distinct ids and none of the
// late ones), the same at every build.

// tieKey orders the values that tie: by the hash of their text, then by
// the text (two values of one hash).
type tieKey struct {
	hash uint64
	text string
}

// keyOf is the tie key of value v: FNV-1a of its bytes, mixed by
// SplitMix64's finalizer so that values differing in their last bytes
// (sequential ids) spread over the whole range.
func keyOf(v string) tieKey {
	h := fnv.New64a()
	h.Write([]byte(v))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return tieKey{hash: x, text: v}
}

// less orders keys.
func (k tieKey) less(o tieKey) bool {
	if k.hash != o.hash {
		return k.hash < o.hash
	}
	return k.text < o.text
}

// cutPoint is where a column was cut: every value held by more than rows
// rows is indexed and, of the total values held by rows rows, the kept
// whose key is below above.
type cutPoint struct {
	rows        int64
	above       tieKey
	kept, total int64
}

// has says whether the value of key k, held by rows rows, is indexed.
func (p *cutPoint) has(rows int64, k tieKey) bool {
	return rows > p.rows || rows == p.rows && k.less(p.above)
}

// tieGroup is the values of one column held by as many rows, as a build
// reads them: those of least key that fit the room the column has left
// (bytes and a count, which is negative when no count bounds it). It
// holds at most the values that fit, never the whole group.
type tieGroup struct {
	rows       int64
	room       int64 // bytes
	count      int64 // values; < 0: no bound
	kept       keyHeap
	cost       int64
	cutAt      *tieKey // the least key not kept; values of keys past it are not taken
	bound      string  // what cut the group, as a search names it
	keptBefore int64   // values of the group an earlier pass of the column indexed
	total      int64   // distinct values of the group, indexed before or not, too long or without words included
}

// offer takes the value of key k, cost cost, when it is among the least
// keys that fit; a value that no longer fits is let go, the one of
// greatest key first. bytes and count name the bounds that cut.
func (g *tieGroup) offer(k tieKey, cost int64, bytes, count string) {
	if g.cutAt != nil && !k.less(*g.cutAt) {
		return
	}
	heap.Push(&g.kept, k)
	g.cost += cost
	for g.cost > g.room || g.count >= 0 && int64(len(g.kept)) > g.count {
		if g.bound == "" {
			g.bound = count
			if g.cost > g.room {
				g.bound = bytes
			}
		}
		out := heap.Pop(&g.kept).(tieKey)
		g.cost -= valueCost(out.text)
		g.cutAt = &out
	}
}

// inOrder is the values kept, least key first (the group's heap is
// sorted in place: it takes no more values).
func (g *tieGroup) inOrder() []tieKey {
	slices.SortFunc(g.kept, func(a, b tieKey) int {
		if a.less(b) {
			return -1
		}
		return 1
	})
	return g.kept
}

// keyHeap is a max-heap of the keys of the values a tieGroup keeps
// (container/heap).
type keyHeap []tieKey

func (h keyHeap) Len() int           { return len(h) }
func (h keyHeap) Less(i, j int) bool { return h[j].less(h[i]) }
func (h keyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *keyHeap) Push(x any)        { *h = append(*h, x.(tieKey)) }
func (h *keyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
