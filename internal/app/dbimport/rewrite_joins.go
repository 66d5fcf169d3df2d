package dbimport

import "github.com/sqlgym/sqlgym/env/sqltext"

// More rewrite rules, as the report names them.
const (
	RuleAggregateText = "AVG/SUM of a text column: text cast to a number"
	RuleSubqueryAlias = "subquery in FROM given an alias"
	RuleCrossJoin     = "JOIN without ON -> CROSS JOIN"
)

// structure applies the rules about a statement's shape: aliases for
// subqueries in FROM, CROSS JOIN for a join without a condition, and
// numbers for the text a sum or an average reads.
func (r *rewriter) structure() {
	for k := range r.sig {
		switch {
		case r.is(k, "from") && r.tok(k+1).Text == "(":
			r.subqueryAlias(k + 1)
		case r.is(k, "join"):
			r.crossJoin(k)
		case (r.is(k, "avg") || r.is(k, "sum")) && r.tok(k+1).Text == "(":
			o := r.operandAfter(k + 2)
			if o.typ == TypeText && r.tok(o.last+1).Text == ")" {
				r.tok(o.first).Text = "CAST(" + r.tok(o.first).Text
				r.tok(o.last).Text += " AS " + r.d.double + ")"
				r.apply(RuleAggregateText)
			}
		}
	}
}

// closing finds the significant token closing the parenthesis at open.
func (r *rewriter) closing(open int) int {
	depth := 0
	for k := open; k < len(r.sig); k++ {
		switch r.tok(k).Text {
		case "(":
			depth++
		case ")":
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return -1
}

// subqueryAlias names a FROM subquery that has no alias: PostgreSQL
// before 16 demands one.
func (r *rewriter) subqueryAlias(open int) {
	c := r.closing(open)
	if c < 0 || !r.is(open+1, "select") {
		return
	}
	next := r.tok(c + 1)
	if next.Kind == sqltext.Ident || next.Kind == sqltext.Word && !isKeyword(next.Text) || r.is(c+1, "as") {
		return
	}
	r.tok(c).Text += " AS sub"
	r.apply(RuleSubqueryAlias)
}

// crossJoin makes a plain JOIN whose table has no ON or USING a CROSS
// JOIN, which is what SQLite runs.
func (r *rewriter) crossJoin(k int) {
	if r.is(k-1, "cross") || r.is(k-1, "natural") || r.is(k-1, "left") || r.is(k-1, "outer") {
		return
	}
	next := k + 2 // past the table
	if r.is(next, "as") {
		next++
	}
	if t := r.tok(next); t.Kind == sqltext.Ident || t.Kind == sqltext.Word && !isKeyword(t.Text) {
		next++
	}
	if r.is(next, "on") || r.is(next, "using") || r.tok(k+1).Text == "(" {
		return
	}
	if r.is(k-1, "inner") {
		r.tok(k - 1).Text = "CROSS"
	} else {
		r.tok(k).Text = "CROSS JOIN"
	}
	r.apply(RuleCrossJoin)
}
