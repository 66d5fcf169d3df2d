package sqltext

import "strings"

// Statements splits sql at its top-level semicolons and returns the
// statements that hold more than white space and comments, each without
// its semicolon.
func Statements(sql string) []string {
	var out []string
	var b strings.Builder
	substantive := false
	flush := func() {
		if st := strings.TrimSpace(b.String()); substantive && st != "" {
			out = append(out, st) // a statement of Unicode spaces alone is none
		}
		b.Reset()
		substantive = false
	}
	for _, t := range Tokens(sql) {
		if t.Kind == Semicolon {
			flush()
			continue
		}
		if t.Kind != Space && t.Kind != Comment {
			substantive = true
		}
		b.WriteString(t.Text)
	}
	flush()
	return out
}

// FirstKeyword returns the first word of sql in upper case, skipping white
// space, comments and opening parentheses; "" if there is none.
func FirstKeyword(sql string) string {
	for _, t := range Tokens(sql) {
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
	for _, t := range Tokens(sql) {
		if t.Kind == Word && strings.EqualFold(t.Text, "distinct") {
			continue
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// Normalize returns sql with comments dropped, white space collapsed to
// single spaces, words in lower case and a trailing semicolon removed, so
// two spellings of the same statement compare equal.
func Normalize(sql string) string {
	var parts []string
	for _, t := range Tokens(sql) {
		switch t.Kind {
		case Space, Comment:
			continue
		case Word:
			parts = append(parts, strings.ToLower(t.Text))
		default:
			parts = append(parts, t.Text)
		}
	}
	for len(parts) > 0 && parts[len(parts)-1] == ";" {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, " ")
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
