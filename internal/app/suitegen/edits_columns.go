package suitegen

import (
	"slices"
	"strings"
)

// columns swaps each column reference for every other column of its
// table declared with the same type.
func (e *editor) columns() {
	for _, ref := range e.r.columns {
		seen := map[string]bool{strings.ToLower(ref.col.name): true}
		for _, t := range ref.tables {
			c, _ := t.column(e.s[ref.at].text)
			for _, o := range t.sameType(c) {
				if key := strings.ToLower(o.name); !seen[key] {
					seen[key] = true
					e.emit(EditColumn, e.s.replace(ref.at, ref.at+1, ident(o.name)))
				}
			}
		}
	}
}

// aggregates swaps each aggregate for the others, and each COUNT among
// its forms: count(*), count(col) and count(DISTINCT col).
func (e *editor) aggregates() {
	for i, t := range e.s {
		if !slices.ContainsFunc(aggregates, func(a string) bool { return strings.EqualFold(a, t.text) }) || !e.s.punct(i+1, "(") {
			continue
		}
		end := e.s.closing(i + 1)
		if end < 0 {
			continue
		}
		star := end == i+3 && e.s.punct(i+2, "*")
		if !star {
			for _, a := range aggregates {
				if !strings.EqualFold(a, t.text) {
					e.emit(EditAggregate, e.s.replace(i, i+1, word(a)))
				}
			}
		}
		if strings.EqualFold(t.text, "count") {
			e.countForms(i+2, end, star)
		}
	}
}

// countForms emits the other forms of the count whose argument is the
// tokens [from, to): count(*) takes a column (up to two, drawn from the
// statement's tables), count(col) becomes count(*) and
// count(DISTINCT col), count(DISTINCT col) becomes count(col) and
// count(*).
func (e *editor) countForms(from, to int, star bool) {
	switch {
	case star:
		for _, c := range e.countColumns() {
			e.emit(EditCount, e.s.replace(from, to, ident(c)))
		}
	case e.s.is(from, "distinct"):
		e.emit(EditCount, e.s.replace(from, from+1))
		e.emit(EditCount, e.s.replace(from, to, punctTok("*")))
	default:
		e.emit(EditCount, e.s.replace(from, to, punctTok("*")))
		e.emit(EditCount, e.s.replace(from, from, word("DISTINCT")))
	}
}

// countColumns draws the columns count(*) becomes count of: one from
// each of the statement's first two tables, among the columns no other
// of its tables has (so the bare name is not ambiguous).
func (e *editor) countColumns() []string {
	var out []string
	for k, t := range e.r.tables {
		if k == 2 {
			break
		}
		var own []string
		for _, c := range t.cols {
			if !hasColumn(slices.Concat(e.r.tables[:k], e.r.tables[k+1:]), c.name) {
				own = append(own, c.name)
			}
		}
		if len(own) > 0 {
			out = append(out, own[e.rng.IntN(len(own))])
		}
	}
	return out
}
