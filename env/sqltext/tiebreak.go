package sqltext

import (
	"strconv"
	"strings"
)

// TieBreak returns sql with its output columns' positions 1, ..., cols
// appended to its top-level ORDER BY, or, for a statement with a window
// and no ORDER BY, with ORDER BY 1, ..., cols put before the window: what
// the statement leaves to the order in which the engine breaks ties is
// then settled by its own columns. cols is the number of columns sql
// returns (OutputCount, or a run's). It reports false when sql has
// neither an ORDER BY nor a window that cuts, cannot be read (see
// TopOrder), or cols is below 1. Under a case-insensitive collation (a
// MySQL default) values that differ in case still tie.
func TieBreak(sql string, cols int) (string, bool) {
	s, ok := read(sql)
	if !ok || cols < 1 {
		return "", false
	}
	switch {
	case len(s.terms) > 0:
		at := s.toks[s.terms[len(s.terms)-1].end-1].end()
		return sql[:at] + ", " + positions(cols) + spaceIfFollowed(sql, at) + sql[at:], true
	case s.win.Cuts():
		at := s.toks[s.winAt].at
		return sql[:at] + spaceIfPreceded(sql, at) + "ORDER BY " + positions(cols) + " " + sql[at:], true
	}
	return "", false
}

// positions is "1, 2, ..., n".
func positions(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}
