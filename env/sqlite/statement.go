package sqlite

import "github.com/sqlgym/sqlgym/env/sandbox"

// leadingKeywords are the words a statement may begin with. The list is a
// first line only: the authorizer and the read-only check after prepare
// are the real guards, but some statements (VACUUM, BEGIN, SAVEPOINT,
// REINDEX of nothing) never reach the authorizer at prepare time.
var leadingKeywords = []string{"SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA"}

// singleStatement checks the text a model sent (or a gold) with the
// engine-neutral sandbox.Rules, counting statements by SQLite's lexical
// rules too, and returns the one statement in it.
func singleStatement(text string, maxBytes int) (string, error) {
	return sandbox.Rules{Allowed: leadingKeywords, MaxBytes: maxBytes, Count: sqliteStatements}.Statement(text)
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
