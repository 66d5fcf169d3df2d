package sqltext

import (
	"math"
	"strconv"
	"strings"
)

// Probe is a rewrite of a statement that shows the values its ORDER BY
// sorts on and reads past its window, so that the rows tied with those at
// the cut can be told: they are the rows whose keys equal the keys of the
// last row kept (or of the first, after an offset).
type Probe struct {
	// SQL is the statement to run: the original with the key columns in
	// front of its own and its window replaced by LIMIT offset+limit+extra
	// (none when the original has no cap), so its rows start at the first.
	SQL string
	// Added is the number of leading columns added for keys; the
	// statement's own columns follow them.
	Added int
	// KeyCols gives, for each ORDER BY term, the result column (counted
	// from 0) that holds its value: an added column, or one of the
	// statement's own when the term names it.
	KeyCols []int
	// Window is the original statement's window.
	Window Window
}

// TieProbe returns the probe of sql, a trusted statement such as a gold
// query, reading extra rows past its window. An ORDER BY term that is an
// output column (a position, an output alias, the same expression as an
// output item) is read from that column; any other is added in front of
// the select list, which a compound select and SELECT DISTINCT do not
// allow (the rows would change). A statement with a window and no ORDER
// BY gets a probe without keys: all its rows tie. It reports false for a
// statement with neither, one TopOrder cannot read, DISTINCT ON, or a
// term it cannot place; MySQL also refuses a column in front of a bare *.
func TieProbe(sql string, extra int64) (Probe, bool) { return tieProbe(sql, extra, false) }

// tieProbe is TieProbe; with sameText, terms that repeat an output
// item's expression are added as columns all the same (a test's check
// that an added key holds the term's value).
func tieProbe(sql string, extra int64, sameText bool) (Probe, bool) {
	s, ok := read(sql)
	if !ok || s.distinctOn || len(s.terms) == 0 && !s.win.Cuts() {
		return Probe{}, false
	}
	keys, added, ok := s.keys(sameText)
	if !ok {
		return Probe{}, false
	}
	var e edits
	if len(added) > 0 {
		e.insert(s.toks[s.listFrom-1].end(), " "+strings.Join(added, ", ")+",")
		s.shiftPositions(&e, len(added))
	}
	s.widen(&e, extra)
	return Probe{SQL: e.apply(sql), Added: len(added), KeyCols: keys, Window: s.win}, true
}

// keys places each ORDER BY term: the probe's column holding its value,
// and the expressions to add in front of the select list.
func (s *statement) keys(sameText bool) ([]int, []string, bool) {
	cols, own := make([]int, len(s.terms)), make([]bool, len(s.terms))
	var added []string
	for i, tm := range s.terms {
		c, how := s.outputColumn(tm)
		switch {
		case how == unplaced:
			return nil, nil, false
		case how == notOutput || sameText && how == byText:
			if !s.injectable(tm) {
				return nil, nil, false
			}
			cols[i] = len(added)
			added = append(added, s.text(tm.from, tm.to))
		default:
			cols[i], own[i] = c, true
		}
	}
	for i := range cols {
		if own[i] {
			cols[i] += len(added) // the statement's own columns follow those added
		}
	}
	return cols, added, true
}

// injectable reports whether a term may be added to the select list: a
// plain SELECT (not DISTINCT, not compound) whose aliases the term does
// not name, since an alias means the output column in ORDER BY but
// something else, or nothing, in the select list.
func (s *statement) injectable(tm term) bool {
	if s.compound || s.distinct || s.selectAt < 0 {
		return false
	}
	for i := tm.from; i < tm.to; i++ {
		key, ok := nameKey(s.toks[i])
		for _, it := range s.items {
			if ok && s.toks[i].Kind != String && it.alias != "" && strings.EqualFold(key, it.alias) {
				return false
			}
		}
	}
	return true
}

// shiftPositions renumbers the integer terms of ORDER BY and of the first
// select's GROUP BY, which name output columns by position, past the n
// columns added in front.
func (s *statement) shiftPositions(e *edits, n int) {
	for _, tm := range s.terms {
		s.shift(e, tm.from, tm.to, n)
	}
	if s.groupAt < 0 {
		return
	}
	end := s.groupAt + 2
	for end < s.hi && !(s.top(end) && s.toks[end].is(groupEnds...)) {
		end++
	}
	for _, span := range s.split(s.groupAt+2, end) {
		s.shift(e, span[0], span[1], n)
	}
}

// groupEnds are the keywords that end GROUP BY on the top level.
var groupEnds = []string{"HAVING", "WINDOW", "QUALIFY", "ORDER", "LIMIT", "OFFSET", "FETCH",
	"UNION", "INTERSECT", "EXCEPT", "MINUS"}

// shift renumbers the term in tokens [from, to) by n when it is a
// position: an integer alone, or before ASC, DESC or WITH ROLLUP.
func (s *statement) shift(e *edits, from, to, n int) {
	t := s.toks[from]
	if t.Kind != Number || !digits(t.Text) || to-from > 1 && !s.toks[from+1].is("ASC", "DESC", "WITH") {
		return
	}
	if p, err := strconv.ParseInt(t.Text, 10, 64); err == nil && p <= math.MaxInt64-int64(n) {
		e.replace(t.at, t.end(), strconv.FormatInt(p+int64(n), 10))
	}
}

// widen replaces the window by LIMIT offset+limit+extra, or by nothing
// when the statement has no cap, keeping the comments it held.
func (s *statement) widen(e *edits, extra int64) {
	if s.winAt == s.hi {
		return
	}
	at, end := s.toks[s.winAt].at, s.toks[s.hi-1].end()
	var parts []string
	w := s.win
	extra = max(extra, 0)
	if w.HasLimit && w.Limit <= math.MaxInt64-w.Offset && w.Limit+w.Offset <= math.MaxInt64-extra {
		parts = append(parts, "LIMIT "+strconv.FormatInt(w.Offset+w.Limit+extra, 10))
	}
	for t := range All(s.sql[at:end]) {
		if t.Kind == Comment {
			parts = append(parts, t.Text)
		}
	}
	text := strings.Join(parts, " ")
	if !strings.HasPrefix(text, "LIMIT") {
		text = spaceIfPreceded(s.sql, at) + text // a comment's -- must not meet a - before it
	}
	e.replace(at, end, text)
}
