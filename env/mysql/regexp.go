package mysql

import (
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// erRegexp is the warning (MariaDB) a regular expression leaves when its
// matcher gives up ("Regex error 'match limit exceeded'"): the match is
// then reported as no match, 0, and nothing in the result says so.
const erRegexp = 1139

// regexpWords are the operators and functions that run a regular
// expression.
var regexpWords = map[string]bool{"regexp": true, "rlike": true, "regexp_like": true,
	"regexp_instr": true, "regexp_replace": true, "regexp_substr": true}

// usesRegexp reports whether the statement of tokens all (as lex gives
// them) runs a regular expression: only such a statement pays for
// reading its warnings.
func usesRegexp(all []token) bool {
	for _, t := range all {
		if t.kind == word && regexpWords[strings.ToLower(t.text)] {
			return true
		}
	}
	return false
}

// regexpGaveUp is the error of a statement whose regular expression gave
// up on a row (the server's backtracking limit), read from its warnings;
// nil when none did. A row that gave up was answered as no match, so the
// rows returned may be wrong: the model is told, rather than given them.
func (c *conn) regexpGaveUp() error {
	rows, err := c.tx.QueryContext(c.ctx, "SHOW WARNINGS")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return err
		}
		if code == erRegexp {
			return env.NewQueryError(env.ErrSQL, "a regular expression gave up: "+msg+
				" (the server's backtracking limit); the rows it could not match would read as no match, so none are returned: use a simpler pattern")
		}
	}
	return rows.Err()
}

// checkRegexp is regexpGaveUp for a statement that runs a regular
// expression and was read to its end.
func (c *conn) checkRegexp(stmt checked) error {
	if c.stopped || !stmt.regexp {
		return nil
	}
	return c.regexpGaveUp()
}

// clearingQuery reads a table and nothing else: it empties the session's
// warnings, which a statement that reads no table leaves in place
// ("SELECT 'abc' REGEXP 'b'" keeps the previous statement's), so that
// regexpGaveUp reads the warnings of the statement it follows alone.
const clearingQuery = "SELECT 1 FROM information_schema.character_sets WHERE 0"

// clearWarnings empties the session's warnings before stmt when stmt
// runs a regular expression.
func (c *conn) clearWarnings(stmt checked) error {
	if !stmt.regexp {
		return nil
	}
	_, err := c.tx.ExecContext(c.ctx, clearingQuery)
	return err
}
