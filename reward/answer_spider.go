package reward

import "slices"

// matchSpiderAnswer reports whether, under some permutation of pred's
// columns, pred is one of a's right answers as bags of rows (ordered:
// chunk by chunk). Two empty results match; different row counts never do.
func matchSpiderAnswer(pred [][]any, a *Answer, ordered bool) bool {
	if len(pred) != a.Len() {
		return false
	}
	if len(pred) == 0 {
		return true
	}
	m, ok := newTieMatch(pred, a, ordered, tieSearchWork)
	return ok && m.search(m.exactFits)
}

// exactFits reports whether p through pcols can be a right answer through
// gcols, rows compared by their values. A partial check compares rows by a
// hash of their values (a collision can only let a wrong branch through,
// to be refused later); a full one by the values themselves.
func (m *tieMatch) exactFits(gcols, pcols []int, full bool) bool {
	if !m.work.spend((m.g.rows + m.p.rows) * max(len(gcols), 1)) {
		return false
	}
	var gk, pk []uint64
	if full && len(gcols) > 1 {
		gk, pk = m.exactClasses(gcols, pcols)
	} else {
		gk, pk = hashRows(m.g, gcols), hashRows(m.p, pcols)
	}
	if m.ordered {
		return m.chunksFit(pk, gk)
	}
	return m.bagFits(pk, gk)
}

// hashRows returns a hash of each of t's rows read through cols. With one
// column it is exact: mix is a bijection.
func hashRows(t table, cols []int) []uint64 {
	out := make([]uint64, t.rows)
	for r := range out {
		var h uint64
		for _, c := range cols {
			h = mix(h + uint64(t.at(r, c)) + 1)
		}
		out[r] = h
	}
	return out
}

// exactClasses numbers the rows of g through gcols and of p through pcols
// alike: equal rows, equal numbers.
func (m *tieMatch) exactClasses(gcols, pcols []int) (gk, pk []uint64) {
	ids := map[string]uint64{}
	row := make([]int32, len(gcols))
	var buf []byte
	number := func(t table, cols []int) []uint64 {
		out := make([]uint64, t.rows)
		for r := range out {
			for i, c := range cols {
				row[i] = t.at(r, c)
			}
			buf = idsKey(buf[:0], row)
			id, ok := ids[string(buf)]
			if !ok {
				id = uint64(len(ids))
				ids[string(buf)] = id
			}
			out[r] = id
		}
		return out
	}
	return number(m.g, gcols), number(m.p, pcols)
}

// chunksFit reports whether each segment's chunk of pk is a sub-bag of
// the segment's rows in gk (the whole bag, for a segment taken whole).
func (m *tieMatch) chunksFit(pk, gk []uint64) bool {
	var chunk, seg, rest []uint64
	for _, s := range m.segs {
		chunk = sortedCopy(chunk[:0], pk[s.at:s.at+s.take])
		seg = sortedCopy(seg[:0], gk[s.start:s.start+s.n])
		var ok bool
		if rest, ok = minus(rest[:0], seg, chunk); !ok {
			return false
		}
	}
	return true
}

// bagFits reports whether the bag pk is the rows of the segments taken
// whole plus Take rows of each other segment.
func (m *tieMatch) bagFits(pk, gk []uint64) bool {
	var whole []uint64
	var cut []span
	for _, s := range m.segs {
		if s.cut() {
			cut = append(cut, s)
		} else {
			whole = append(whole, gk[s.start:s.start+s.n]...)
		}
	}
	slices.Sort(whole)
	rest, ok := minus(nil, sortedCopy(nil, pk), whole)
	switch {
	case !ok:
		return false
	case len(cut) == 0:
		return len(rest) == 0
	case len(cut) == 1:
		_, ok := minus(nil, sortedCopy(nil, gk[cut[0].start:cut[0].start+cut[0].n]), rest)
		return ok
	}
	return m.cutsFit(rest, cut, gk)
}

// cutsFit reports whether the bag rest can be split among the cut
// segments, each giving Take of its rows: a transport problem from rest's
// distinct rows to the segments.
func (m *tieMatch) cutsFit(rest []uint64, cut []span, gk []uint64) bool {
	index := map[uint64]int{}
	var supply []int
	for _, k := range rest {
		v, ok := index[k]
		if !ok {
			v = len(supply)
			index[k] = v
			supply = append(supply, 0)
		}
		supply[v]++
	}
	arcs := make([][]arcTo, len(supply))
	take := make([]int, len(cut))
	for i, s := range cut {
		take[i] = s.take
		for _, k := range gk[s.start : s.start+s.n] {
			v, ok := index[k]
			if !ok {
				continue
			}
			if last := len(arcs[v]) - 1; last >= 0 && arcs[v][last].seg == i {
				arcs[v][last].cap++
			} else {
				arcs[v] = append(arcs[v], arcTo{seg: i, cap: 1})
			}
		}
	}
	return transport(supply, arcs, take, m.work.spend)
}

// sortedCopy appends src to dst and sorts what it appended.
func sortedCopy(dst, src []uint64) []uint64 {
	n := len(dst)
	dst = append(dst, src...)
	slices.Sort(dst[n:])
	return dst
}

// minus appends the bag a less the bag b to dst, both sorted; ok is false
// when b is not a sub-bag of a.
func minus(dst, a, b []uint64) (rest []uint64, ok bool) {
	j := 0
	for _, x := range a {
		if j < len(b) && b[j] == x {
			j++
			continue
		}
		if j < len(b) && b[j] < x {
			return dst, false
		}
		dst = append(dst, x)
	}
	return dst, j == len(b)
}
