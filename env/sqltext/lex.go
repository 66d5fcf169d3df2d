// Package sqltext reads SQL as text, without parsing it: a lexer that knows
// strings, quoted identifiers and comments, and the few questions sqlgym
// asks of a statement's text (how many statements, which keyword leads,
// does it say ORDER BY, the text with DISTINCT removed).
//
// It understands the lexical rules shared by SQLite and PostgreSQL: '...'
// strings with doubled-quote escapes (and E'...' backslash escapes), "..." `...` and
// [...] identifiers, -- and /* */ comments, and $tag$...$tag$ strings. It
// imports only the standard library, so every layer may use it.
package sqltext

import (
	"iter"
	"strings"
)

// Kind is the kind of a token.
type Kind int

// Token kinds.
const (
	Space     Kind = iota // white space
	Comment               // -- to end of line, or /* ... */
	String                // a string literal, quotes included
	Ident                 // a quoted identifier, quotes included
	Word                  // a keyword or bare identifier
	Number                // a numeric literal
	Semicolon             // ;
	Punct                 // any other character
)

// Token is one lexical token; Text is its exact source text.
type Token struct {
	Kind Kind
	Text string
}

// Tokens splits sql into tokens. Concatenating their Text gives sql back.
// An unterminated string, identifier or comment runs to the end of sql.
func Tokens(sql string) []Token {
	out := make([]Token, 0, len(sql)/3+1) // SQL runs about three bytes a token: one allocation, not one per doubling
	for t := range All(sql) {
		out = append(out, t)
	}
	return out
}

// All yields the tokens of sql in order, as Tokens returns them, without
// building a slice: the questions asked on every step (how many
// statements, which keyword leads, the normalized text) read the tokens
// once and allocate nothing for them.
func All(sql string) iter.Seq[Token] {
	return func(yield func(Token) bool) {
		for i := 0; i < len(sql); {
			k, n := next(sql[i:])
			if !yield(Token{Kind: k, Text: sql[i : i+n]}) {
				return
			}
			i += n
		}
	}
}

// next returns the kind and byte length of the token at the start of s.
func next(s string) (Kind, int) {
	c := s[0]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		return Space, span(s, func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v' })
	case strings.HasPrefix(s, "--"):
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			return Comment, i + 1
		}
		return Comment, len(s)
	case strings.HasPrefix(s, "/*"):
		if i := strings.Index(s[2:], "*/"); i >= 0 {
			return Comment, i + 4
		}
		return Comment, len(s)
	case c == '\'':
		return String, quoted(s, '\'')
	case (c == 'E' || c == 'e') && len(s) > 1 && s[1] == '\'':
		return String, 1 + escaped(s[1:])
	case c == '"' || c == '`':
		return Ident, quoted(s, c)
	case c == '[':
		if i := strings.IndexByte(s, ']'); i >= 0 {
			return Ident, i + 1
		}
		return Ident, len(s)
	case c == '$':
		if n := dollar(s); n > 0 {
			return String, n
		}
		return Punct, 1
	case c == ';':
		return Semicolon, 1
	case isDigit(c) || (c == '.' && len(s) > 1 && isDigit(s[1])):
		return Number, span(s, func(b byte) bool { return isDigit(b) || b == '.' || isWordByte(b) })
	case isWordByte(c):
		return Word, span(s, isWordByte)
	}
	return Punct, 1
}

// quoted measures a token quoted by q, where a doubled q stands for itself.
func quoted(s string, q byte) int {
	for i := 1; i < len(s); i++ {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(s)
}

// escaped measures a '...' string in which a backslash escapes the next byte.
func escaped(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(s)
}

// dollar measures a $tag$...$tag$ string, or returns 0 if s does not start one.
func dollar(s string) int {
	end := strings.IndexByte(s[1:], '$')
	if end < 0 {
		return 0
	}
	tag := s[:end+2]
	inner := tag[1 : len(tag)-1]
	if inner != "" && isDigit(inner[0]) {
		return 0 // $1 is a parameter, not a tag
	}
	for _, b := range []byte(inner) {
		if !isWordByte(b) {
			return 0
		}
	}
	if i := strings.Index(s[len(tag):], tag); i >= 0 {
		return len(tag) + i + len(tag)
	}
	return len(s)
}

func span(s string, ok func(byte) bool) int {
	i := 0
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || isDigit(b) || b >= 0x80
}
