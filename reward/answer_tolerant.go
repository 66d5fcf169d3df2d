package reward

// matchTolerantAnswer is matchSpiderAnswer with numbers equal within tol
// (as MatchTolerant compares them). Because that equality is not
// transitive, rows are paired, not counted: the rows of pred flow to the
// answer's rows they equal, each of a segment's rows takes at most one,
// and each segment at most Take; pred matches when all of it flows.
func matchTolerantAnswer(pred [][]any, a *Answer, ordered bool, tol float64) bool {
	if matchSpiderAnswer(pred, a, ordered) {
		return true
	}
	if !(tol > 0) || len(pred) != a.Len() || len(pred) == 0 {
		return false
	}
	m, ok := newTolMatch(pred, a, ordered, tol, tieTolWork)
	// Where the tolerance joins no two numbers, it is the spider rule,
	// which failed.
	return ok && m.blur.any(m.blur.numbers(m.g, nil), m.blur.numbers(m.p, nil)) && m.search(m.tolFits)
}

// newTolMatch is newTieMatch for a tolerant search.
func newTolMatch(pred [][]any, a *Answer, ordered bool, tol float64, work int) (*tieMatch, bool) {
	m, ok := newTieMatch(pred, a, ordered, work)
	m.tol = &tolMatcher{in: m.in, tol: tol, g: m.g, p: m.p}
	m.blur = newBlur(m)
	return m, ok
}

// tolFits reports whether p through pcols can be a right answer through
// gcols under the tolerance: unordered, all of p against every segment;
// ordered, each segment's chunk against the segment alone.
func (m *tieMatch) tolFits(gcols, pcols []int, _ bool) bool {
	blurred := m.blur.columns(gcols, pcols)
	if blurred == nil {
		return m.exactFits(gcols, pcols, true)
	}
	if !m.ordered {
		return m.tolRowsFit(0, m.p.rows, m.segs, gcols, pcols, blurred)
	}
	for i, s := range m.segs {
		var ok bool
		switch {
		case s.take == 0:
			ok = true
		case s.n == 1:
			ok = m.work.spend(len(gcols)) && m.tol.rowEqual(s.start, gcols, s.at, pcols)
		default:
			ok = m.tolRowsFit(s.at, s.at+s.take, m.segs[i:i+1], gcols, pcols, blurred)
		}
		if !ok {
			return false
		}
	}
	return true
}

// tolRowsFit reports whether p's rows [lo, hi) can be paired each with a
// distinct row of segs that it equals under the tolerance, taking every
// row of a segment taken whole and Take rows of each other segment: a
// flow from p's distinct rows through the segments' distinct rows and the
// cut segments to the sink, which must carry every row. blurred marks the
// columns where numbers are compared within the tolerance; elsewhere they
// are compared exactly.
func (m *tieMatch) tolRowsFit(lo, hi int, segs []span, gcols, pcols []int, blurred []bool) bool {
	read := hi - lo
	for _, s := range segs {
		read += s.n
	}
	if !m.work.spend(read * len(gcols)) {
		return false
	}
	f := newNetwork(2, m.work.spend) // 0 the source, 1 the sink
	near := newTolIndex(m, pcols, blurred)
	for _, g := range groupRows(m.p, lo, hi, pcols) {
		v := f.node()
		f.arc(0, v, g.count)
		near.add(g.rep, v)
	}
	near.sort()
	for _, s := range segs {
		out := 1
		if s.cut() {
			out = f.node()
			f.arc(out, 1, s.take)
		}
		for _, g := range groupRows(m.g, s.start, s.start+s.n, gcols) {
			t := f.node()
			f.arc(t, out, g.count)
			for _, e := range near.candidates(g.rep, gcols) {
				if !m.work.spend(len(gcols)) {
					return false
				}
				if m.tol.rowEqual(g.rep, gcols, e.row, pcols) {
					f.arc(e.node, t, g.count)
				}
			}
		}
	}
	flow, ok := f.maxFlow(0, 1)
	return ok && flow == hi-lo
}

// rowGroup is a set of equal rows: one of them, how many, and the next
// group whose rows hash alike (-1 for none).
type rowGroup struct{ rep, count, next int }

// groupRows groups t's rows [lo, hi), read through cols, by their values.
func groupRows(t table, lo, hi int, cols []int) []rowGroup {
	first := make(map[uint64]int, hi-lo) // by hash, the first group
	var out []rowGroup
	for r := lo; r < hi; r++ {
		var h uint64
		for _, c := range cols {
			h = mix(h + uint64(t.at(r, c)) + 1)
		}
		i, ok := first[h]
		for ok && !sameIDs(t, out[i].rep, r, cols) {
			i = out[i].next
			ok = i >= 0
		}
		if ok {
			out[i].count++
			continue
		}
		g := rowGroup{rep: r, count: 1, next: -1}
		if j, ok := first[h]; ok {
			g.next = j
		}
		first[h] = len(out)
		out = append(out, g)
	}
	return out
}

// sameIDs reports whether rows a and b of t hold the same values in cols.
func sameIDs(t table, a, b int, cols []int) bool {
	for _, c := range cols {
		if t.at(a, c) != t.at(b, c) {
			return false
		}
	}
	return true
}
