package dbgen

import (
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// operand is one side of a comparison: a column (resolved to every column
// it may name) or a literal.
type operand struct {
	refs   []colRef
	text   string // a literal's value
	quoted bool   // a string literal
	isLit  bool
	end    int // the index of the token after it
}

// wrappers are the functions around a column whose comparisons seed the
// column too (HAVING avg(age) > 30 makes ages near 30 worth having).
var wrappers = map[string]bool{"min": true, "max": true, "avg": true, "sum": true}

// operand reads a column reference or a literal starting at token i.
func (r *goldReader) operand(i int) (operand, bool) {
	if i >= len(r.toks) {
		return operand{}, false
	}
	tok := r.toks[i]
	switch {
	case tok.Kind == sqltext.String:
		return operand{text: unquoteString(tok.Text), quoted: true, isLit: true, end: i + 1}, true
	case tok.Kind == sqltext.Number:
		return operand{text: tok.Text, isLit: true, end: i + 1}, true
	case (tok.Text == "-" || tok.Text == "+") && i+1 < len(r.toks) && r.toks[i+1].Kind == sqltext.Number:
		return operand{text: strings.TrimPrefix(tok.Text, "+") + r.toks[i+1].Text, isLit: true, end: i + 2}, true
	case tok.Kind == sqltext.Word && wrappers[strings.ToLower(tok.Text)] && r.at(i+1) == "(":
		return r.wrapped(i + 2)
	case isName(tok) && r.at(i+1) == ".":
		return r.qualified(i)
	case isName(tok) && r.at(i+1) != "(":
		return r.bare(i)
	}
	return operand{}, false
}

// wrapped reads the column inside a wrapper's parentheses, at token i.
func (r *goldReader) wrapped(i int) (operand, bool) {
	if isWord(r.toksAt(i), "distinct") {
		i++
	}
	o, ok := r.operand(i)
	if !ok || o.isLit || r.at(o.end) != ")" {
		return operand{}, false
	}
	o.end++
	return o, true
}

// toksAt returns token i, or an empty token past the end.
func (r *goldReader) toksAt(i int) sqltext.Token {
	if i < 0 || i >= len(r.toks) {
		return sqltext.Token{}
	}
	return r.toks[i]
}

// qualified reads X.Y at token i: Y in every table X is bound to (or the
// table X names, when the statement binds nothing to it).
func (r *goldReader) qualified(i int) (operand, bool) {
	if !isName(r.toksAt(i + 2)) {
		return operand{}, false
	}
	ts := r.binds[strings.ToLower(identText(r.toks[i]))]
	if t, ok := r.s.table(identText(r.toks[i])); ok && len(ts) == 0 {
		ts = []int{t}
	}
	o := operand{end: i + 3}
	name := identText(r.toks[i+2])
	for _, t := range ts {
		if c, ok := r.s.tables[t].column(name); ok {
			o.refs = append(o.refs, colRef{t, c})
		}
	}
	return o, len(o.refs) > 0
}

// bare reads an unqualified name at token i: the column of that name in
// every table of the statement that has one. A double-quoted name that is
// no such column is a string, as SQLite reads it.
func (r *goldReader) bare(i int) (operand, bool) {
	name := identText(r.toks[i])
	o := operand{end: i + 1}
	for _, t := range r.tables {
		if c, ok := r.s.tables[t].column(name); ok {
			o.refs = append(o.refs, colRef{t, c})
		}
	}
	if len(o.refs) > 0 {
		return o, true
	}
	if r.toks[i].Kind == sqltext.Ident && strings.HasPrefix(r.toks[i].Text, `"`) {
		return operand{text: name, quoted: true, isLit: true, end: i + 1}, true
	}
	return operand{}, false
}

// unquoteString is the content of a '...' string token (one the lexer
// left unterminated runs to its end).
func unquoteString(s string) string {
	if len(s) > 0 && (s[0] == 'E' || s[0] == 'e') {
		s = s[1:]
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		break
	}
	return b.String()
}
