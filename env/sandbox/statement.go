package sandbox

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
)

// byteOrderMark is U+FEFF, which editors and some tokenizers put at the
// start of a text; it is not part of the SQL.
const byteOrderMark = "\ufeff"

// Rules are an engine's checks of a statement's text.
type Rules struct {
	// Allowed are the keywords a statement may begin with, upper case.
	Allowed []string
	// MaxBytes bounds the text's length.
	MaxBytes int
	// Count, when set, counts the statements in the text by the
	// engine's own lexical rules, which may differ from sqltext's: either
	// count above one is a rejection.
	Count func(text string) int
}

// Statement checks the text a model sent (or a gold) and returns the one
// statement in it, without a leading byte-order mark or a trailing
// semicolon. What is wrong is a *env.QueryError: ErrTooLarge for a text
// past MaxBytes, ErrSQL for an empty text or one that does not begin
// with a statement keyword at all (a typo such as SELEC is a syntax
// error), ErrMultiStatement for more than one statement, and ErrDenied
// for a statement of a kind the engine refuses (INSERT, COPY, ...).
func (r Rules) Statement(text string) (string, error) {
	text = strings.TrimLeft(text, byteOrderMark)
	if len(text) > r.MaxBytes {
		return "", env.NewQueryError(env.ErrTooLarge,
			fmt.Sprintf("statement too long: %d bytes; at most %d are allowed", len(text), r.MaxBytes))
	}
	first, found := sqltext.FirstStatement(text)
	n := found
	if r.Count != nil {
		if c := r.Count(text); c == 0 || c > n {
			n = c
		}
	}
	switch {
	case found == 0 || n == 0:
		return "", env.NewQueryError(env.ErrSQL, "empty statement: send one SQL statement")
	case n > 1:
		return "", env.NewQueryError(env.ErrMultiStatement,
			fmt.Sprintf("only one statement per call is allowed; got %d", n))
	}
	if err := r.leading(first); err != nil {
		return "", err
	}
	return first, nil
}

// leading checks the statement's first keyword.
func (r Rules) leading(stmt string) error {
	kw := sqltext.FirstKeyword(stmt)
	for _, a := range r.Allowed {
		if kw == a {
			return nil
		}
	}
	allowed := strings.Join(r.Allowed, ", ")
	if !statementKeywords[kw] {
		near := kw
		if near == "" {
			near = firstToken(stmt)
		}
		return env.NewQueryError(env.ErrSQL, fmt.Sprintf(
			"syntax error at or near %q: a statement must begin with one of %s", near, allowed))
	}
	return env.NewQueryError(env.ErrDenied, fmt.Sprintf(
		"statement denied: %s statements are not allowed; only read-only statements beginning with %s may run", kw, allowed))
}

// firstToken is the first token of stmt that is not space or a comment,
// cut to a readable length.
func firstToken(stmt string) string {
	for _, t := range sqltext.Tokens(stmt) {
		if t.Kind == sqltext.Space || t.Kind == sqltext.Comment || t.Text == "(" {
			continue
		}
		if len(t.Text) > 40 {
			return t.Text[:40] + "…"
		}
		return t.Text
	}
	return ""
}

// statementKeywords are the words that begin a statement in SQLite,
// PostgreSQL or MySQL. A refused statement that begins with one is denied; a text
// that begins with any other word is not SQL at all, and is a syntax
// error.
var statementKeywords = map[string]bool{
	"ABORT": true, "ALTER": true, "ANALYSE": true, "ANALYZE": true, "ATTACH": true,
	"BEGIN": true, "CALL": true, "CHECKPOINT": true, "CLOSE": true, "CLUSTER": true,
	"COMMENT": true, "COMMIT": true, "COPY": true, "CREATE": true, "DEALLOCATE": true,
	"DECLARE": true, "DELETE": true, "DETACH": true, "DISCARD": true, "DO": true,
	"DROP": true, "END": true, "EXECUTE": true, "EXPLAIN": true, "FETCH": true,
	"GRANT": true, "IMPORT": true, "INSERT": true, "LISTEN": true, "LOAD": true,
	"LOCK": true, "MERGE": true, "MOVE": true, "NOTIFY": true, "PRAGMA": true,
	"PREPARE": true, "REASSIGN": true, "REFRESH": true, "REINDEX": true, "RELEASE": true,
	"REPLACE": true, "RESET": true, "REVOKE": true, "ROLLBACK": true, "SAVEPOINT": true,
	"SECURITY": true, "SELECT": true, "SET": true, "SHOW": true, "START": true,
	"TABLE": true, "TRUNCATE": true, "UNLISTEN": true, "UPDATE": true, "VACUUM": true,
	"VALUES": true, "WITH": true, "UPSERT": true,
	// MySQL's and MariaDB's own.
	"HANDLER": true, "USE": true, "DESCRIBE": true, "DESC": true, "FLUSH": true, "KILL": true,
	"RENAME": true, "OPTIMIZE": true, "REPAIR": true, "CHECKSUM": true, "INSTALL": true,
	"UNINSTALL": true, "XA": true, "BINLOG": true, "PURGE": true, "CHANGE": true, "STOP": true,
	"SHUTDOWN": true, "RESTART": true, "HELP": true, "BACKUP": true, "UNLOCK": true,
}
