package reward

import "github.com/sqlgym/sqlgym/schemas"

// MatchAnswer reports whether pred is one of a's right answers under the
// spec's match mode; ordered is as in Match (the caller passes
// sqltext.HasOrderBy of the gold SQL). Values compare as in Match.
//
//   - bird: set(pred) == set(ans) for some right answer ans.
//   - spider: under one permutation of pred's columns, pred holds the same
//     bag of rows as some right answer; ordered, pred's rows cut into
//     consecutive chunks of the segments' Take sizes are each a sub-bag of
//     their segment's rows.
//   - tolerant: spider, with numbers equal within spec.FloatTolerance as
//     in MatchTolerant.
//
// When a is Unique and unordered, or every segment holds one row, this is
// Match(spec, pred, a.First(), ordered), item for item. Otherwise the
// search is bounded (2^26 steps in spider mode, 2^24 in tolerant; see
// docs/reward.md), and one that runs out reports no match. An answer
// with a segment taking more rows than it holds matches nothing.
func MatchAnswer(spec schemas.RewardSpec, pred [][]any, a *Answer, ordered bool) bool {
	if !a.valid() {
		return false
	}
	if a.Unique() && (!ordered || a.singleRows()) {
		return Match(spec, pred, a.First(), ordered)
	}
	return matchAnswer(spec, pred, a, ordered)
}

// matchAnswer is MatchAnswer without its fast path.
func matchAnswer(spec schemas.RewardSpec, pred [][]any, a *Answer, ordered bool) bool {
	if spec.Match == schemas.MatchBird {
		return matchBirdAnswer(pred, a)
	}
	if spec.Match == schemas.MatchSpider {
		return matchSpiderAnswer(pred, a, ordered)
	}
	return spec.Match == schemas.MatchTolerant && matchTolerantAnswer(pred, a, ordered, spec.FloatTolerance)
}

// Bounds of a search against an Answer, in steps (rows and cells read,
// arcs of a flow network visited). A search that runs out reports no
// match; see docs/reward.md.
const (
	// tieSearchWork bounds a spider search: column permutations tried,
	// each checked over every row.
	tieSearchWork = searchWork
	// tieTolWork bounds a tolerant search, which pairs rows through a
	// flow network where the spider search counts them.
	tieTolWork = 1 << 24
)

// budget is the work a search may still do.
type budget struct{ left int }

// spend takes n steps from the budget; false once it is spent.
func (b *budget) spend(n int) bool {
	b.left -= n
	return b.left >= 0
}

// matchBirdAnswer reports whether set(pred) is the row set of some right
// answer of a. Every row of a segment taken whole must be in pred's set;
// each other segment must hold at least Take rows in it; and the rows of
// pred's set no whole segment holds must be spread over those segments,
// at most Take distinct rows to each: a transport problem.
func matchBirdAnswer(pred [][]any, a *Answer) bool {
	c := newRowClasses()
	inPred := map[int]bool{}
	for _, row := range pred {
		inPred[c.of(row)] = true
	}
	covered := map[int]bool{}
	var cut []Segment
	for _, s := range a.Segments {
		if s.Take < len(s.Rows) {
			cut = append(cut, s)
			continue
		}
		for _, row := range s.Rows {
			k := c.of(row)
			if !inPred[k] {
				return false
			}
			covered[k] = true
		}
	}
	rest := map[int]int{} // pred's rows no whole segment holds, numbered
	for k := range inPred {
		if !covered[k] {
			rest[k] = len(rest)
		}
	}
	return birdCutsFit(c, inPred, rest, cut)
}

// birdCutsFit reports whether the cut segments can each take Take rows of
// pred's set that, together, hold every row of rest.
func birdCutsFit(c *rowClasses, inPred map[int]bool, rest map[int]int, cut []Segment) bool {
	supply := make([]int, len(rest))
	arcs := make([][]arcTo, len(rest))
	take := make([]int, len(cut))
	for i, s := range cut {
		take[i] = s.Take
		held, reached := 0, map[int]bool{}
		for _, row := range s.Rows {
			k := c.of(row)
			if !inPred[k] {
				continue
			}
			held++
			if v, ok := rest[k]; ok && !reached[v] {
				reached[v] = true
				arcs[v] = append(arcs[v], arcTo{seg: i, cap: 1})
			}
		}
		if held < s.Take {
			return false
		}
	}
	for v := range supply {
		supply[v] = 1
	}
	work := budget{tieSearchWork}
	return transport(supply, arcs, take, work.spend)
}

// rowClasses numbers rows by their keys: equal rows, equal numbers.
type rowClasses struct {
	ids map[string]int
	buf []byte
}

func newRowClasses() *rowClasses { return &rowClasses{ids: map[string]int{}} }

// of returns row's number, numbering it if it is new.
func (c *rowClasses) of(row []any) int {
	c.buf = rowKey(c.buf[:0], row)
	id, ok := c.ids[string(c.buf)]
	if !ok {
		id = len(c.ids)
		c.ids[string(c.buf)] = id
	}
	return id
}
