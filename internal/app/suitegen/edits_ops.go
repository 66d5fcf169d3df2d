package suitegen

import (
	"slices"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// compare swaps each comparison operator for the others of its family.
// "<>" and "==" count as "!=" and "=": swapping spellings makes no
// neighbour.
func (e *editor) compare() {
	for i, t := range e.s {
		if t.kind != sqltext.Punct {
			continue
		}
		op := t.text
		switch op {
		case "<>":
			op = "!="
		case "==":
			op = "="
		}
		if !slices.Contains(comparisons, op) {
			continue
		}
		for _, other := range comparisons {
			if other != op {
				e.emit(EditCompare, e.s.replace(i, i+1, punctTok(other)))
			}
		}
	}
}

// arithmetic swaps each binary arithmetic operator for the others: an
// operator between two operands, not the * of count(*) or SELECT *, nor a
// unary minus.
func (e *editor) arithmetic() {
	for i, t := range e.s {
		if t.kind != sqltext.Punct || !slices.Contains(arithmetic, t.text) || !e.operand(i-1, true) || !e.operand(i+1, false) {
			continue
		}
		for _, other := range arithmetic {
			if other != t.text {
				e.emit(EditArithmetic, e.s.replace(i, i+1, punctTok(other)))
			}
		}
	}
}

// operand reports whether token i can end (before an operator) or start
// (after one) an operand.
func (e *editor) operand(i int, ends bool) bool {
	if i < 0 || i >= len(e.s) {
		return false
	}
	t := e.s[i]
	switch t.kind {
	case sqltext.Number, sqltext.String, sqltext.Ident:
		return true
	case sqltext.Word:
		return !isKeyword(t.text)
	case sqltext.Punct:
		return ends && t.text == ")" || !ends && t.text == "("
	}
	return false
}

// andOr swaps each connective AND for OR and OR for AND.
func (e *editor) andOr() {
	for _, k := range e.l.connectives() {
		other := "OR"
		if e.s.is(k, "or") {
			other = "AND"
		}
		e.emit(EditAndOr, e.s.replace(k, k+1, word(other)))
	}
}

// negations turns LIKE into NOT LIKE and back, and IN into NOT IN and
// back.
func (e *editor) negations() {
	for i := range e.s {
		for _, kw := range []string{"like", "in"} {
			if !e.s.is(i, kw) {
				continue
			}
			kind := EditLike
			if kw == "in" {
				kind = EditIn
			}
			if e.s.is(i-1, "not") {
				e.emit(kind, e.s.replace(i-1, i+1, e.s[i]))
			} else {
				e.emit(kind, e.s.replace(i, i+1, word("NOT"), e.s[i]))
			}
		}
	}
}
