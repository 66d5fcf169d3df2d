package suitegen

import (
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// clause is one clause of a SELECT, at any depth: its keywords are the
// tokens [start, body), what follows them up to the next clause of the
// same SELECT is [body, end).
type clause struct {
	kw               string // lower case: "where", "group", "order", "limit", "join", ...
	start, body, end int
	depth            int
}

// layout is what the edits read of a statement: each token's depth and
// its clauses.
type layout struct {
	s       stmt
	depth   []int
	clauses []clause
}

// newLayout reads the clauses of every SELECT of s.
func newLayout(s stmt) *layout {
	l := &layout{s: s, depth: s.depths()}
	for i := 0; i < len(s); i++ {
		if c, ok := l.clauseAt(i); ok {
			l.clauses = append(l.clauses, c)
			i = c.body - 1
		}
	}
	return l
}

// clauseAt reads the clause whose keywords start at token i, if one does.
func (l *layout) clauseAt(i int) (clause, bool) {
	s := l.s
	if s[i].kind != sqltext.Word || !clauseWords[strings.ToLower(s[i].text)] {
		return clause{}, false
	}
	c := clause{kw: strings.ToLower(s[i].text), start: i, body: i + 1, depth: l.depth[i]}
	switch c.kw {
	case "group", "order":
		if !s.is(i+1, "by") {
			return clause{}, false
		}
		c.body = i + 2
	case "left", "inner", "cross", "natural", "right", "full":
		j := i + 1
		for j < len(s) && !s.is(j, "join") && (s.is(j, "outer") || s.is(j, "left") || s.is(j, "inner")) {
			j++
		}
		if !s.is(j, "join") {
			return clause{}, false
		}
		c.kw, c.body = "join", j+1
	}
	c.end = l.clauseEnd(c.body, c.depth)
	return c, true
}

// clauseEnd is where a clause whose body starts at from, at depth d,
// ends: at the next clause word at depth d, at the parenthesis that
// closes d, or at the end.
func (l *layout) clauseEnd(from, d int) int {
	for k := from; k < len(l.s); k++ {
		if l.depth[k] < d {
			return k
		}
		if l.depth[k] == d && l.s[k].kind == sqltext.Word && clauseWords[strings.ToLower(l.s[k].text)] {
			if _, ok := l.clauseAt(k); ok {
				return k
			}
		}
	}
	return len(l.s)
}

// predicates splits a condition's body [from, to) at depth d into its
// predicates: the spans between its AND and OR connectives (not the AND
// of a BETWEEN, nor those inside a CASE or parentheses). conn[i] is the
// connective after predicate i.
func (l *layout) predicates(from, to, d int) (spans [][2]int, conn []int) {
	start, cases, between := from, 0, false
	for k := from; k < to; k++ {
		if l.depth[k] != d {
			continue
		}
		switch {
		case l.s.is(k, "case"):
			cases++
		case l.s.is(k, "end") && cases > 0:
			cases--
		case l.s.is(k, "between"):
			between = true
		case l.s.is(k, "and") && between:
			between = false
		case cases == 0 && (l.s.is(k, "and") || l.s.is(k, "or")):
			spans = append(spans, [2]int{start, k})
			conn = append(conn, k)
			start = k + 1
		}
	}
	return append(spans, [2]int{start, to}), conn
}

// connectives returns the AND and OR tokens of s that join predicates:
// every one but the AND of a BETWEEN.
func (l *layout) connectives() []int {
	var out []int
	pending := map[int]int{} // BETWEENs awaiting their AND, by depth
	for k := range l.s {
		d := l.depth[k]
		switch {
		case l.s.is(k, "between"):
			pending[d]++
		case l.s.is(k, "and") && pending[d] > 0:
			pending[d]--
		case l.s.is(k, "and") || l.s.is(k, "or"):
			out = append(out, k)
		}
	}
	return out
}

// ofKind returns the clauses whose keyword is kw.
func (l *layout) ofKind(kw string) []clause {
	var out []clause
	for _, c := range l.clauses {
		if c.kw == kw {
			out = append(out, c)
		}
	}
	return out
}

// top returns the last clause kw at depth 0, if any: the statement's own
// ORDER BY or LIMIT, after every compound part.
func (l *layout) top(kw string) (clause, bool) {
	var found clause
	ok := false
	for _, c := range l.clauses {
		if c.kw == kw && c.depth == 0 {
			found, ok = c, true
		}
	}
	return found, ok
}
