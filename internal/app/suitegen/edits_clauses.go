package suitegen

import (
	"strconv"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// conditions drops each predicate of every WHERE, HAVING and ON clause
// with the connective beside it; a clause of one predicate goes whole.
func (e *editor) conditions() {
	for _, c := range e.l.clauses {
		if c.kw != "where" && c.kw != "having" && c.kw != "on" {
			continue
		}
		spans, conn := e.l.predicates(c.body, c.end, c.depth)
		if len(spans) == 1 {
			e.emit(EditCondition, e.s.replace(c.start, c.end))
			continue
		}
		for k, sp := range spans {
			if k < len(conn) {
				e.emit(EditCondition, e.s.replace(sp[0], conn[k]+1))
			} else {
				e.emit(EditCondition, e.s.replace(conn[k-1], sp[1]))
			}
		}
	}
}

// distinct removes each DISTINCT and adds one to each SELECT without it.
func (e *editor) distinct() {
	for i := range e.s {
		switch {
		case e.s.is(i, "distinct"):
			e.emit(EditDistinct, e.s.replace(i, i+1))
		case e.s.is(i, "select") && !e.s.is(i+1, "distinct") && !e.s.is(i+1, "all"):
			e.emit(EditDistinct, e.s.replace(i+1, i+1, word("DISTINCT")))
		}
	}
}

// order flips each ORDER BY term's direction: ASC to DESC, DESC to ASC,
// and DESC added to a term that names none.
func (e *editor) order() {
	for _, c := range e.l.ofKind("order") {
		start := c.body
		for k := c.body; k <= c.end; k++ {
			if k < c.end && (e.l.depth[k] != c.depth || !e.s.punct(k, ",")) {
				continue
			}
			last := k - 1
			switch {
			case last < start:
			case e.s.is(last, "asc"):
				e.emit(EditOrder, e.s.replace(last, k, word("DESC")))
			case e.s.is(last, "desc"):
				e.emit(EditOrder, e.s.replace(last, k, word("ASC")))
			default:
				e.emit(EditOrder, e.s.replace(k, k, word("DESC")))
			}
			start = k + 1
		}
	}
}

// limit moves each LIMIT n to n+1 and n-1 (not below 0) and drops it.
func (e *editor) limit() {
	for _, c := range e.l.ofKind("limit") {
		e.emit(EditLimit, e.s.replace(c.start, c.end))
		if c.body >= len(e.s) || e.s[c.body].kind != sqltext.Number {
			continue
		}
		n, err := strconv.ParseInt(e.s[c.body].text, 10, 64)
		if err != nil {
			continue
		}
		for _, m := range []int64{n + 1, n - 1} {
			if m >= 0 {
				e.emit(EditLimit, e.s.replace(c.body, c.body+1, tok{kind: sqltext.Number, text: strconv.FormatInt(m, 10)}))
			}
		}
	}
}

// groupHaving drops each GROUP BY, alone and with the HAVING that follows
// it, and each HAVING whole.
func (e *editor) groupHaving() {
	for _, c := range e.l.clauses {
		switch c.kw {
		case "group":
			e.emit(EditGroupBy, e.s.replace(c.start, c.end))
			if h, ok := e.clauseFrom(c.end, "having"); ok {
				e.emit(EditGroupBy, e.s.replace(c.start, h.end))
			}
		case "having":
			e.emit(EditHaving, e.s.replace(c.start, c.end))
		}
	}
}

// clauseFrom returns the clause kw that starts at token i.
func (e *editor) clauseFrom(i int, kw string) (clause, bool) {
	for _, c := range e.l.clauses {
		if c.start == i && c.kw == kw {
			return c, true
		}
	}
	return clause{}, false
}

// joins turns JOIN and INNER JOIN into LEFT JOIN, and LEFT [OUTER] JOIN
// into JOIN. CROSS, NATURAL, RIGHT and FULL joins are left alone.
func (e *editor) joins() {
	for _, c := range e.l.ofKind("join") {
		switch {
		case e.s.is(c.start, "join"), e.s.is(c.start, "inner"):
			e.emit(EditJoin, e.s.replace(c.start, c.body, word("LEFT"), word("JOIN")))
		case e.s.is(c.start, "left"):
			e.emit(EditJoin, e.s.replace(c.start, c.body, word("JOIN")))
		}
	}
}
