package reward

// tieMatch is one comparison of a prediction with an Answer under some
// permutation of the prediction's columns: the two interned alike, the
// answer's rows one segment after another.
type tieMatch struct {
	in      *interner
	g, p    table  // the answer's rows, segment by segment; the prediction's
	segs    []span // where each segment lies in g and, ordered, in p
	ordered bool
	work    budget
	tol     *tolMatcher // set for the tolerant search
	blur    *blur       // set for the tolerant search
	a       *assigner   // set by search
	// fits reports whether p read through pcols can still be a right
	// answer read through gcols; full says they are every column.
	fits func(gcols, pcols []int, full bool) bool
}

// span places a segment: its rows are g's [start, start+n), of which it
// takes take; ordered, its chunk of p is [at, at+take).
type span struct{ start, n, take, at int }

// cut reports whether the segment takes only some of its rows.
func (s span) cut() bool { return s.take < s.n }

// newTieMatch interns pred and a's rows; ok is false when either is ragged
// or their widths differ. The caller has checked that pred has a.Len()
// rows and that there are some.
func newTieMatch(pred [][]any, a *Answer, ordered bool, work int) (m *tieMatch, ok bool) {
	m = &tieMatch{in: newInterner(), ordered: ordered, work: budget{work}}
	var rows [][]any
	at := 0
	for _, s := range a.Segments {
		m.segs = append(m.segs, span{start: len(rows), n: len(s.Rows), take: s.Take, at: at})
		rows = append(rows, s.Rows...)
		at += s.Take
	}
	g, okG := m.in.intern(rows)
	p, okP := m.in.intern(pred)
	m.g, m.p = g, p
	return m, okG && okP && g.cols == p.cols
}

// search looks for a permutation of p's columns under which fits holds
// for every column. Each gold column may take only the pred columns it
// fits alone; the columns are then assigned fewest candidates first, and
// a partial assignment is kept only while it fits.
func (m *tieMatch) search(fits func(gcols, pcols []int, full bool) bool) bool {
	m.fits = fits
	if m.g.cols == 0 {
		return fits(nil, nil, true)
	}
	cand := make([][]int, m.g.cols)
	for gc := range cand {
		for pc := range m.p.cols {
			if fits([]int{gc}, []int{pc}, m.g.cols == 1) {
				cand[gc] = append(cand[gc], pc)
			}
		}
	}
	if m.work.left < 0 || !perfectMatching(cand, m.p.cols) {
		return false
	}
	_, pvec := classes(nil, columnKeys(m.p, false))
	m.a = newAssigner(cand, pvec, 0) // the budget is m.work
	return m.solve(0)
}

// solve assigns the gold column at depth and those after it.
func (m *tieMatch) solve(depth int) bool {
	if depth == len(m.a.order) {
		return true
	}
	gc := m.a.order[depth]
	for _, pc := range m.a.options(gc) {
		m.a.take(gc, pc)
		if m.check(depth+1) && m.solve(depth+1) {
			return true
		}
		m.a.drop(gc, pc)
		if m.work.left < 0 {
			return false
		}
	}
	return false
}

// check reports whether the first depth assigned columns fit.
func (m *tieMatch) check(depth int) bool {
	gcols := m.a.order[:depth]
	pcols := make([]int, depth)
	for i, gc := range gcols {
		pcols[i] = m.a.assign[gc]
	}
	return m.fits(gcols, pcols, depth == len(m.a.order))
}
