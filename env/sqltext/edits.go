package sqltext

import (
	"slices"
	"strings"
)

// edit replaces the bytes [at, end) of a statement by text; at == end
// inserts it.
type edit struct {
	at, end int
	text    string
}

// edits are the changes of one rewrite, none overlapping another.
type edits []edit

// insert adds text at the byte offset at.
func (e *edits) insert(at int, text string) { *e = append(*e, edit{at: at, end: at, text: text}) }

// replace puts text in place of the bytes [at, end).
func (e *edits) replace(at, end int, text string) {
	*e = append(*e, edit{at: at, end: end, text: text})
}

// apply returns sql with the edits made.
func (e edits) apply(sql string) string {
	slices.SortStableFunc(e, func(a, b edit) int { return a.at - b.at })
	var b strings.Builder
	b.Grow(len(sql) + 64)
	done := 0
	for _, d := range e {
		b.WriteString(sql[done:d.at])
		b.WriteString(d.text)
		done = d.end
	}
	b.WriteString(sql[done:])
	return b.String()
}

// spaceIfFollowed is the space to end an insertion of positions at the
// byte at with, so that the last number does not run into what follows.
func spaceIfFollowed(sql string, at int) string {
	if at < len(sql) && (isWordByte(sql[at]) || sql[at] == '.' || sql[at] == '$') {
		return " "
	}
	return ""
}

// spaceIfPreceded is the space to begin an insertion at the byte at
// with, so that it does not run into the token that precedes.
func spaceIfPreceded(sql string, at int) string {
	if at > 0 && !isSpace(sql[at-1]) {
		return " "
	}
	return ""
}

// isSpace reports whether b is white space, as the lexer reads it.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}
