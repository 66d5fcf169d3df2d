package suitegen

import (
	"math/rand/v2"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// Edit names the kind of one-token-span change that made a neighbour.
type Edit string

// The edits, each applied once at a time to a gold.
const (
	EditCompare    Edit = "compare"    // a comparison operator swapped for another of =, !=, <, >, <=, >=
	EditArithmetic Edit = "arithmetic" // a binary + - * / swapped for another
	EditAndOr      Edit = "and-or"     // AND <-> OR
	EditLike       Edit = "like"       // LIKE <-> NOT LIKE
	EditIn         Edit = "in"         // IN <-> NOT IN
	EditCondition  Edit = "condition"  // a predicate of WHERE, HAVING or ON dropped (the clause, when it was the only one)
	EditLiteral    Edit = "literal"    // a number or string changed
	EditDistinct   Edit = "distinct"   // DISTINCT added or removed
	EditAggregate  Edit = "aggregate"  // an aggregate swapped among count, min, max, avg, sum
	EditCount      Edit = "count"      // count(*), count(col), count(DISTINCT col) swapped
	EditOrder      Edit = "order"      // ASC <-> DESC, DESC added where none was
	EditLimit      Edit = "limit"      // LIMIT n changed to n+1 or n-1, or dropped
	EditColumn     Edit = "column"     // a column swapped for another of its table with the same declared type
	EditJoin       Edit = "join"       // JOIN <-> LEFT JOIN
	EditGroupBy    Edit = "group-by"   // GROUP BY dropped, alone or with its HAVING
	EditHaving     Edit = "having"     // HAVING dropped
)

// Neighbour is a query one edit away from a gold.
type Neighbour struct {
	SQL  string `json:"sql"`
	Edit Edit   `json:"edit"`
}

// editor collects the neighbours of one statement.
type editor struct {
	s   stmt
	l   *layout
	r   *refs
	rng *rand.Rand // the literal and column draws; seeded per gold
	out []Neighbour
}

// emit records s as a neighbour made by edit e.
func (e *editor) emit(kind Edit, s stmt) {
	e.out = append(e.out, Neighbour{SQL: s.String(), Edit: kind})
}

// edits returns every neighbour of the statement s, in a fixed order
// (edit kind by edit kind, token by token), duplicates included.
func edits(s stmt, sc *Schema, rng *rand.Rand) []Neighbour {
	l := newLayout(s)
	e := &editor{s: s, l: l, r: readRefs(l, sc), rng: rng}
	e.compare()
	e.arithmetic()
	e.andOr()
	e.negations()
	e.conditions()
	e.literals()
	e.distinct()
	e.aggregates()
	e.order()
	e.limit()
	e.columns()
	e.joins()
	e.groupHaving()
	return e.out
}

// punctTok is a punctuation token.
func punctTok(p string) tok { return tok{kind: sqltext.Punct, text: p} }

// closing returns the index of the parenthesis that closes the one at
// open, or -1.
func (s stmt) closing(open int) int {
	depth := 0
	for k := open; k < len(s); k++ {
		switch {
		case s.punct(k, "("):
			depth++
		case s.punct(k, ")"):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}
