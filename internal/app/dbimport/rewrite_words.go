package dbimport

import (
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// words rewrites quoted identifiers, strings in double quotes, LIKE and
// the SQLite-only functions.
func (r *rewriter) words() {
	for k := range r.sig {
		t := r.tok(k)
		if t.Kind == sqltext.Ident {
			r.quoted(k, t) // a string now, or still a name
		}
		if t.Kind != sqltext.Ident {
			r.d.word(r, k, t)
		}
	}
}

// pgWord applies PostgreSQL's word rules: ILIKE for LIKE, and its names
// of SQLite's functions.
func (r *rewriter) pgWord(k int, t *sqltext.Token) {
	switch {
	case r.is(k, "like"):
		t.Text = "ILIKE"
		r.apply(RuleLike)
	case r.is(k, "ifnull") && r.tok(k+1).Text == "(":
		t.Text = "COALESCE"
		r.apply(RuleIfNull)
	case r.is(k, "instr") && r.tok(k+1).Text == "(":
		t.Text = "STRPOS"
		r.apply(RuleInstr)
	}
}

// quoted rewrites a quoted token. SQLite reads "x" as an identifier when
// x names one, and as a string otherwise; `x` and [x] are identifiers.
// Identifiers are lower-cased to meet the lower-cased copy.
func (r *rewriter) quoted(k int, t *sqltext.Token) {
	name := unquote(t.Text)
	isIdent := t.Text[0] != '"' || r.is(k-1, "as") || r.s.names(name) || r.aliases[strings.ToLower(name)] != nil
	if !isIdent {
		t.Text, t.Kind = sqlString(name), sqltext.String
		r.apply(RuleDoubleQuotedString)
		return
	}
	q := r.d.quoteIdent(strings.ToLower(name))
	if q != t.Text {
		t.Text = q
		r.apply(RuleQuotedIdentifier)
	}
}

// keywords are the words that end a FROM item rather than alias it.
var keywords = map[string]bool{
	"where": true, "group": true, "order": true, "having": true, "limit": true, "join": true,
	"on": true, "inner": true, "left": true, "right": true, "outer": true, "cross": true,
	"natural": true, "union": true, "intersect": true, "except": true, "using": true,
	"as": true, "select": true, "from": true, "and": true, "or": true, "not": true, "full": true,
}

func isKeyword(w string) bool { return keywords[strings.ToLower(w)] }
