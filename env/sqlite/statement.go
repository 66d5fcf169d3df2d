package sqlite

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
)

// leadingKeywords are the words a statement may begin with. The list is a
// first line only: the authorizer and the read-only check after prepare
// are the real guards, but some statements (VACUUM, BEGIN, SAVEPOINT,
// REINDEX of nothing) never reach the authorizer at prepare time.
var leadingKeywords = map[string]bool{
	"SELECT": true, "WITH": true, "VALUES": true, "EXPLAIN": true, "PRAGMA": true,
}

// byteOrderMark is U+FEFF, which editors and some tokenizers put at the
// start of a text; it is not part of the SQL.
const byteOrderMark = "\ufeff"

// singleStatement checks the text a model sent (or a gold) and returns
// the one statement in it, without a leading byte-order mark or a
// trailing semicolon.
func singleStatement(text string, maxBytes int) (string, error) {
	text = strings.TrimLeft(text, byteOrderMark)
	if len(text) > maxBytes {
		return "", env.NewQueryError(env.ErrTooLarge,
			fmt.Sprintf("statement too long: %d bytes; at most %d are allowed", len(text), maxBytes))
	}
	stmts := sqltext.Statements(text)
	switch {
	case len(stmts) == 0 || sqliteStatements(text) == 0:
		return "", env.NewQueryError(env.ErrSQL, "empty statement: send one SQL statement")
	case len(stmts) > 1 || sqliteStatements(text) > 1:
		return "", env.NewQueryError(env.ErrMultiStatement,
			fmt.Sprintf("only one statement per call is allowed; got %d", max(len(stmts), sqliteStatements(text))))
	}
	kw := sqltext.FirstKeyword(stmts[0])
	if !leadingKeywords[kw] {
		if kw == "" {
			kw = "this"
		}
		return "", env.NewQueryError(env.ErrDenied, fmt.Sprintf(
			"statement denied: %s statements are not allowed; only read-only SELECT, WITH, VALUES, EXPLAIN and PRAGMA statements may run", kw))
	}
	return stmts[0], nil
}

// sqliteStatements counts the statements in text by SQLite's own lexical
// rules, which differ from sqltext's shared rules (SQLite has no $tag$ or
// E'...' strings). Only the first statement is ever prepared, so a
// disagreement could not run a second one; counting both ways turns it
// into a clear rejection instead of a silently ignored tail.
func sqliteStatements(text string) int {
	n, substantive := 0, false
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ';':
			if substantive {
				n++
			}
			substantive = false
			i++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			i = skipTo(text, i+2, "\n")
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			i = skipTo(text, i+2, "*/")
		case c == '\'' || c == '"' || c == '`':
			substantive = true
			i = skipQuoted(text, i+1, c)
		case c == '[':
			substantive = true
			i = skipTo(text, i+1, "]")
		default:
			substantive = true
			i++
		}
	}
	if substantive {
		n++
	}
	return n
}

// skipTo returns the index just past the first end at or after i, or
// len(s) when there is none.
func skipTo(s string, i int, end string) int {
	for j := i; j+len(end) <= len(s); j++ {
		if s[j:j+len(end)] == end {
			return j + len(end)
		}
	}
	return len(s)
}

// skipQuoted returns the index just past the quote q that closes the
// quoted text starting at i, where a doubled q stands for itself.
func skipQuoted(s string, i int, q byte) int {
	for i < len(s) {
		if s[i] != q {
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			i += 2
			continue
		}
		return i + 1
	}
	return len(s)
}
