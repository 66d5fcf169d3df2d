package sqltext

import "strings"

// Statements splits sql at its top-level semicolons and returns the
// statements that hold more than white space and comments, each without
// its semicolon. Each statement is a substring of sql: nothing is copied.
func Statements(sql string) []string {
	var out []string
	eachStatement(sql, func(st string) { out = append(out, st) })
	return out
}

// FirstStatement returns the first of Statements(sql), "" when there is
// none, and how many there are, without building the list: a statement's
// checks need no more, on every query.
func FirstStatement(sql string) (first string, n int) {
	eachStatement(sql, func(st string) {
		if n == 0 {
			first = st
		}
		n++
	})
	return first, n
}

// eachStatement calls f with each statement of sql, in order, as
// Statements returns them.
func eachStatement(sql string, f func(string)) {
	start, substantive := 0, false
	flush := func(end int) {
		if st := strings.TrimSpace(sql[start:end]); substantive && st != "" {
			f(st) // a statement of Unicode spaces alone is none
		}
		substantive = false
	}
	at := 0
	for t := range All(sql) {
		switch t.Kind {
		case Semicolon:
			flush(at)
			start = at + len(t.Text)
		case Space, Comment:
		default:
			substantive = true
		}
		at += len(t.Text)
	}
	flush(len(sql))
}

// FirstKeyword returns the first word of sql in upper case, skipping white
// space, comments and opening parentheses; "" if there is none.
func FirstKeyword(sql string) string {
	for t := range All(sql) {
		switch {
		case t.Kind == Space || t.Kind == Comment || t.Text == "(":
			continue
		case t.Kind == Word:
			return strings.ToUpper(t.Text)
		default:
			return ""
		}
	}
	return ""
}

// HasOrderBy reports whether sql contains "order by", case-insensitively,
// anywhere in its text: the Spider evaluator's rule for when row order
// matters.
func HasOrderBy(sql string) bool {
	return strings.Contains(strings.ToLower(sql), "order by")
}

// StripDistinct removes every DISTINCT keyword from sql, those inside
// aggregates too, as the Spider evaluator does by default. Strings,
// identifiers and comments are left alone.
func StripDistinct(sql string) string {
	var b strings.Builder
	b.Grow(len(sql))
	for t := range All(sql) {
		if t.Kind == Word && strings.EqualFold(t.Text, "distinct") {
			continue
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// Normalize returns sql with comments dropped, white space collapsed to
// single spaces, words in lower case and a trailing semicolon removed, so
// two spellings of the same statement compare equal. It builds the result
// in one allocation: the repeat check calls it on every SQL step.
func Normalize(sql string) string { return NormalizeAfter("", sql) }

// NormalizeAfter returns prefix followed by Normalize(sql), built in the
// same one allocation: a key that names what the statement belongs to
// costs no second copy.
func NormalizeAfter(prefix, sql string) string {
	var b strings.Builder
	b.Grow(len(prefix) + len(sql))
	b.WriteString(prefix)
	keep := b.Len() // the length of b up to its last token other than ";"
	for t := range All(sql) {
		switch t.Kind {
		case Space, Comment:
			continue
		}
		if b.Len() > len(prefix) {
			b.WriteByte(' ')
		}
		if t.Kind == Word {
			writeLower(&b, t.Text)
		} else {
			b.WriteString(t.Text)
		}
		if t.Kind != Semicolon {
			keep = b.Len()
		}
	}
	return b.String()[:keep]
}

// writeLower writes word to b in lower case, as strings.ToLower would,
// without an intermediate string when word is ASCII.
func writeLower(b *strings.Builder, word string) {
	for i := 0; i < len(word); i++ {
		if word[i] >= 0x80 {
			b.WriteString(strings.ToLower(word))
			return
		}
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
}

// Empty reports whether sql holds no statement: nothing but white space,
// comments and semicolons. It is len(Statements(sql)) == 0 without
// building the statements.
func Empty(sql string) bool {
	for i := 0; i < len(sql); {
		k, n := next(sql[i:])
		if k != Space && k != Comment && k != Semicolon && strings.TrimSpace(sql[i:i+n]) != "" {
			return false
		}
		i += n
	}
	return true
}
