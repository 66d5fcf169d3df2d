package suitegen

import (
	"github.com/sqlgym/sqlgym/env/sqltext"
	"strconv"
)

// tieBreaks returns gold with what it leaves to tie order settled by its
// cols output columns, ascending and descending: its top-level ORDER BY
// completed by the column positions, or, for a LIMIT without ORDER BY,
// an ORDER BY of them put before the LIMIT. ok is false when gold has
// neither at its top level, or has no columns: nothing is left to tie
// order.
func tieBreaks(gold string, cols int) (asc, desc string, ok bool) {
	s := lex(gold)
	l := newLayout(s)
	order, hasOrder := l.top("order")
	limit, hasLimit := l.top("limit")
	if cols == 0 || !hasOrder && !hasLimit {
		return "", "", false
	}
	at, lead := order.end, []tok{punctTok(",")}
	if !hasOrder {
		at, lead = limit.start, []tok{word("ORDER"), word("BY")}
	}
	return s.replace(at, at, positions(lead, cols, "ASC")...).String(),
		s.replace(at, at, positions(lead, cols, "DESC")...).String(), true
}

// positions is lead followed by the column positions 1..cols, each with
// the direction dir, separated by commas.
func positions(lead []tok, cols int, dir string) []tok {
	out := append([]tok(nil), lead...)
	for c := 1; c <= cols; c++ {
		if c > 1 {
			out = append(out, punctTok(","))
		}
		out = append(out, tok{kind: sqltext.Number, text: strconv.Itoa(c)}, word(dir))
	}
	return out
}
