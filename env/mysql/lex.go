package mysql

import "strings"

// kind is the kind of a token of MySQL's lexical rules.
type kind int

const (
	space kind = iota
	comment
	str   // '...'
	ident // `...` or "..." (ANSI_QUOTES: session.go pins sql_mode)
	word
	number
	semicolon
	punct
)

// token is one token of a statement.
type token struct {
	kind kind
	text string
}

// lex splits sql into tokens by MySQL's rules, which differ from those
// env/sqltext knows: backslash escapes in strings (no
// NO_BACKSLASH_ESCAPES), "..." a string, # a comment to the end of the
// line, -- a comment only when white space or a control character
// follows it, "..." a name (the sessions' ANSI_QUOTES), and /*! ... */ a
// comment whose text the server runs.
func lex(sql string) []token {
	var out []token
	for i := 0; i < len(sql); {
		k, n := nextToken(sql[i:])
		out = append(out, token{k, sql[i : i+n]})
		i += n
	}
	return out
}

func nextToken(s string) (kind, int) {
	c := s[0]
	switch {
	case isSpace(c):
		n := 1
		for n < len(s) && isSpace(s[n]) {
			n++
		}
		return space, n
	case c == '#' || strings.HasPrefix(s, "--") && (len(s) == 2 || s[2] <= ' '):
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			return comment, i + 1
		}
		return comment, len(s)
	case strings.HasPrefix(s, "/*"):
		if i := strings.Index(s[2:], "*/"); i >= 0 {
			return comment, i + 4
		}
		return comment, len(s)
	case c == '\'':
		return str, quotedEscaped(s, c)
	case c == '`' || c == '"':
		return ident, quotedEscaped(s, c)
	case c == ';':
		return semicolon, 1
	case c >= '0' && c <= '9':
		n := 1
		for n < len(s) && (isWordByte(s[n]) || s[n] == '.') {
			n++
		}
		return number, n
	case isWordByte(c):
		n := 1
		for n < len(s) && isWordByte(s[n]) {
			n++
		}
		return word, n
	}
	return punct, 1
}

// quotedEscaped measures a token quoted by q, where a doubled q stands
// for itself and, in a string, a backslash escapes the next byte.
func quotedEscaped(s string, q byte) int {
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q == '\'':
			i++
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return len(s)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isWordByte reports whether c may be part of a bare word: MySQL's
// identifiers take letters, digits, _ and $, and any byte past ASCII.
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// countStatements counts the statements in sql by MySQL's rules: the
// runs of tokens other than space and comments between semicolons.
func countStatements(sql string) int {
	n, open := 0, false
	for _, t := range lex(sql) {
		switch t.kind {
		case space, comment:
		case semicolon:
			open = false
		default:
			if !open {
				n++
				open = true
			}
		}
	}
	return n
}

// name is the identifier a word or quoted identifier writes, in lower
// case, or "" for any other token.
func (t token) name() string {
	switch t.kind {
	case word:
		return strings.ToLower(t.text)
	case ident:
		q := t.text[:1]
		inner := strings.TrimSuffix(strings.TrimPrefix(t.text, q), q)
		return strings.ToLower(strings.ReplaceAll(inner, q+q, q))
	}
	return ""
}
