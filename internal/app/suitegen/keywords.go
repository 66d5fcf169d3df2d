package suitegen

import "strings"

// keywords are the words that are never a table's, an alias's or a
// column's name in a gold: SQLite's keywords that golds use, and the
// words the edits look for.
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all and as asc between by case cast collate cross desc distinct
		else end escape except exists from full glob group having in inner intersect is isnull join
		left like limit natural not notnull null offset on or order outer regexp right select then
		union using values when where window with`) {
		m[w] = true
	}
	return m
}()

// isKeyword reports whether w is one of keywords, in any case.
func isKeyword(w string) bool { return keywords[strings.ToLower(w)] }

// clauseWords open a clause of a SELECT: at the depth of the SELECT they
// end the clause before them.
var clauseWords = map[string]bool{
	"select": true, "from": true, "where": true, "group": true, "having": true, "order": true,
	"limit": true, "union": true, "intersect": true, "except": true, "join": true, "on": true,
	"using": true, "window": true, "left": true, "inner": true, "cross": true, "natural": true,
	"right": true, "full": true, "values": true,
}

// aggregates are the aggregate functions the aggregate edit swaps.
var aggregates = []string{"count", "min", "max", "avg", "sum"}

// comparisons are the comparison operators the comparison edit swaps;
// "<>" and "==" are spellings of "!=" and "=" and become them.
var comparisons = []string{"=", "!=", "<", ">", "<=", ">="}

// arithmetic are the binary operators the arithmetic edit swaps.
var arithmetic = []string{"+", "-", "*", "/"}
