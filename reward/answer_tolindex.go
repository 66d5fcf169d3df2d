package reward

import (
	"cmp"
	"encoding/binary"
	"slices"
	"sort"
)

// tolIndex finds the prediction's rows that a row of the answer may equal
// under the tolerance: those whose values are the row's where they must
// be equal exactly (its skeleton: all but the numbers in blurred columns)
// and, when the skeleton blanks a number, whose first such number is near
// the row's.
type tolIndex struct {
	m       *tieMatch
	pcols   []int
	blurred []bool                // per column, whether its numbers blur
	buckets map[string]*tolBucket // by skeleton
	buf     []byte
}

// tolBucket is the prediction's rows of one skeleton, by their first
// number.
type tolBucket struct {
	pos     int // the first number's place in the columns; -1 when none
	entries []tolEntry
}

// tolEntry is a prediction row and its node in the flow network.
type tolEntry struct {
	row, node int
	num       float64 // its first number
}

func newTolIndex(m *tieMatch, pcols []int, blurred []bool) *tolIndex {
	return &tolIndex{m: m, pcols: pcols, blurred: blurred, buckets: map[string]*tolBucket{}}
}

// add files p's row under node.
func (x *tolIndex) add(row, node int) {
	var pos int
	x.buf, pos = x.skeleton(x.m.p, row, x.pcols)
	b, ok := x.buckets[string(x.buf)]
	if !ok {
		b = &tolBucket{pos: pos}
		x.buckets[string(x.buf)] = b
	}
	e := tolEntry{row: row, node: node}
	if pos >= 0 {
		e.num = x.m.in.num[x.m.p.at(row, x.pcols[pos])]
	}
	b.entries = append(b.entries, e)
}

// sort orders each bucket by number (NaN first, as cmp.Compare does).
func (x *tolIndex) sort() {
	for _, b := range x.buckets {
		slices.SortFunc(b.entries, func(e, f tolEntry) int { return cmp.Compare(e.num, f.num) })
	}
}

// candidates returns the prediction's rows that g's row may equal.
func (x *tolIndex) candidates(row int, gcols []int) []tolEntry {
	var pos int
	x.buf, pos = x.skeleton(x.m.g, row, gcols)
	b, ok := x.buckets[string(x.buf)]
	if !ok {
		return nil
	}
	if pos < 0 {
		return b.entries
	}
	num := x.m.in.num[x.m.g.at(row, gcols[pos])]
	d, ok := reach(num, x.m.tol.tol)
	if !ok {
		return b.entries
	}
	lo := sort.Search(len(b.entries), func(i int) bool { return b.entries[i].num >= num-d })
	hi := sort.Search(len(b.entries), func(i int) bool { return b.entries[i].num > num+d })
	return b.entries[lo:max(lo, hi)]
}

// skeleton returns the key of row r of t through cols with the numbers
// of blurred columns blanked (two rows can be equal under the tolerance
// only when their skeletons are), and the place of its first blank, -1 if
// none. The key is in x's buffer, good until the next call.
func (x *tolIndex) skeleton(t table, r int, cols []int) ([]byte, int) {
	pos := -1
	buf := x.buf[:0]
	for i, c := range cols {
		id := t.at(r, c)
		if x.blurred[i] && x.m.in.class[id] == classNumber {
			id = -1
			if pos < 0 {
				pos = i
			}
		}
		buf = binary.LittleEndian.AppendUint32(buf, uint32(id))
	}
	return buf, pos
}
