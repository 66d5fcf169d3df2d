package sqltext

import "strconv"

// Window is a statement's LIMIT/OFFSET window: the rows it returns are
// those from Offset (counted from 0) on, at most Limit of them when
// HasLimit is set. The zero Window keeps every row.
type Window struct {
	Offset   int64 // rows skipped; never negative
	Limit    int64 // rows kept after Offset, when HasLimit; never negative
	HasLimit bool  // false: no cap (no LIMIT, LIMIT ALL, SQLite's negative LIMIT)
}

// Cuts reports whether the window leaves out any row: a cap or an offset.
func (w Window) Cuts() bool { return w.HasLimit || w.Offset > 0 }

// readWindow reads the window, which runs from winAt to the end of the
// body: LIMIT n | LIMIT ALL | LIMIT m, n, OFFSET m [ROW | ROWS] and FETCH
// {FIRST | NEXT} [n] {ROW | ROWS} ONLY, a cap and an offset at most once
// each, in either order.
func (s *statement) readWindow() bool {
	var capped, offset bool
	for i := s.winAt; i < s.hi; {
		var ok bool
		switch t := s.toks[i]; {
		case t.is("LIMIT") && !capped:
			var pair bool
			i, pair, ok = s.readLimit(i + 1)
			capped, ok, offset = true, ok && !(pair && offset), offset || pair
		case t.is("OFFSET") && !offset:
			offset = true
			i, ok = s.readOffset(i + 1)
		case t.is("FETCH") && !capped:
			capped = true
			i, ok = s.readFetch(i + 1)
		}
		if !ok {
			return false
		}
	}
	return true
}

// readLimit reads what follows LIMIT: ALL, n, or m, n; it returns the
// index past it and whether it held an offset (m, n).
func (s *statement) readLimit(i int) (next int, pair, ok bool) {
	if s.at(i).is("ALL") {
		return i + 1, false, true
	}
	n, i, ok := s.integer(i)
	if !ok {
		return 0, false, false
	}
	if s.at(i).Text == "," {
		s.win.Offset, pair = max(n, 0), true
		if n, i, ok = s.integer(i + 1); !ok {
			return 0, false, false
		}
	}
	s.setLimit(n)
	return i, pair, true
}

// readOffset reads what follows OFFSET: m [ROW | ROWS].
func (s *statement) readOffset(i int) (int, bool) {
	n, i, ok := s.integer(i)
	if !ok {
		return 0, false
	}
	s.win.Offset = max(n, 0)
	if s.at(i).is("ROW", "ROWS") {
		i++
	}
	return i, true
}

// readFetch reads what follows FETCH: {FIRST | NEXT} [n] {ROW | ROWS}
// ONLY. WITH TIES is refused: its rows are not those of a LIMIT.
func (s *statement) readFetch(i int) (int, bool) {
	if !s.at(i).is("FIRST", "NEXT") {
		return 0, false
	}
	n, j, ok := s.integer(i + 1)
	if !ok {
		n, j = 1, i+1
	}
	if !s.at(j).is("ROW", "ROWS") || !s.at(j+1).is("ONLY") {
		return 0, false
	}
	s.setLimit(n)
	return j + 2, true
}

// setLimit records a cap of n rows; a negative n (SQLite) is none.
func (s *statement) setLimit(n int64) {
	s.win.Limit, s.win.HasLimit = max(n, 0), n >= 0
}

// integer reads an integer literal, with an optional sign, at i; it
// returns its value and the index past it.
func (s *statement) integer(i int) (int64, int, bool) {
	sign := ""
	if t := s.at(i).Text; t == "-" || t == "+" {
		sign, i = t, i+1
	}
	t := s.at(i)
	if t.Kind != Number || !digits(t.Text) {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(sign+t.Text, 10, 64)
	return n, i + 1, err == nil
}

// digits reports whether text is a non-empty run of decimal digits.
func digits(text string) bool {
	for i := 0; i < len(text); i++ {
		if !isDigit(text[i]) {
			return false
		}
	}
	return text != ""
}
