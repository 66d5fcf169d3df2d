package dbgen

import (
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// colRef names one column of the schema.
type colRef struct{ table, col int }

// literal is a constant a gold compares a column with.
type literal struct {
	col    colRef
	op     string // "=", "!=", "<", "<=", ">", ">=", "between", "in" or "like"
	text   string // a string's content, or a number's text
	quoted bool   // a string, not a number
}

// join is an equality between two columns, in ON or WHERE.
type join struct{ a, b colRef }

// goldFacts is what a gold says about the schema's columns.
type goldFacts struct {
	literals []literal
	joins    []join
}

// goldReader reads the literals and joins of one gold from its tokens,
// without parsing it: every binding of every alias in the statement
// counts (Spider names other tables T1 and T2 again in subqueries), so a
// reference may resolve to several columns, and each gets the literal.
type goldReader struct {
	s      *schema
	toks   []sqltext.Token  // the gold's tokens, white space and comments left out
	binds  map[string][]int // lower-case alias or table name -> the tables it is bound to
	tables []int            // the tables the statement names, in order
	facts  goldFacts
}

// readGold returns what gold says about the columns of s.
func readGold(s *schema, gold string) goldFacts {
	r := &goldReader{s: s, toks: significant(gold), binds: map[string][]int{}}
	r.bind()
	for i := range r.toks {
		if i > 0 && r.toks[i-1].Text == "." {
			continue // the column of a qualified name, read with its qualifier
		}
		if a, ok := r.operand(i); ok {
			r.predicate(a)
		}
	}
	return r.facts
}

// clauseWords end a FROM clause's list of tables.
var clauseWords = map[string]bool{
	"where": true, "group": true, "order": true, "having": true, "limit": true, "union": true,
	"except": true, "intersect": true, "select": true, "on": true, "using": true, "window": true,
}

// notAlias are the words that can follow a table name without being its
// alias.
var notAlias = map[string]bool{
	"join": true, "left": true, "right": true, "inner": true, "outer": true, "cross": true,
	"natural": true, "full": true, "as": true, "from": true, "and": true, "or": true, "not": true,
	"indexed": true, "offset": true, "values": true, "set": true, "returning": true,
}

// bind collects the tables each alias and table name is bound to: after
// FROM, JOIN, and each comma of a FROM clause's list.
func (r *goldReader) bind() {
	inFrom := false
	for i, tok := range r.toks {
		switch {
		case isWord(tok, "from"), isWord(tok, "join"):
			inFrom = true
			r.bindAt(i + 1)
		case tok.Text == "," && inFrom:
			r.bindAt(i + 1)
		case tok.Kind == sqltext.Word && clauseWords[strings.ToLower(tok.Text)]:
			inFrom = false
		}
	}
}

// bindAt binds the table named at token i, and its alias if one follows.
func (r *goldReader) bindAt(i int) {
	if i >= len(r.toks) || !isName(r.toks[i]) {
		return
	}
	t, ok := r.s.table(identText(r.toks[i]))
	if !ok {
		return
	}
	if !slices.Contains(r.tables, t) {
		r.tables = append(r.tables, t)
	}
	r.addBind(identText(r.toks[i]), t)
	i++
	if i < len(r.toks) && isWord(r.toks[i], "as") {
		i++
	}
	if i < len(r.toks) && isName(r.toks[i]) {
		name := identText(r.toks[i])
		if r.toks[i].Kind == sqltext.Ident || !clauseWords[strings.ToLower(name)] && !notAlias[strings.ToLower(name)] {
			r.addBind(name, t)
		}
	}
}

// addBind binds name to table t.
func (r *goldReader) addBind(name string, t int) {
	key := strings.ToLower(name)
	if !slices.Contains(r.binds[key], t) {
		r.binds[key] = append(r.binds[key], t)
	}
}

// isName reports whether tok can name a table, alias or column.
func isName(tok sqltext.Token) bool { return tok.Kind == sqltext.Word || tok.Kind == sqltext.Ident }

// at returns the text of token i, "" past the end.
func (r *goldReader) at(i int) string {
	if i < 0 || i >= len(r.toks) {
		return ""
	}
	return r.toks[i].Text
}
