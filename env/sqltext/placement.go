package sqltext

import "strconv"

// placement says how an ORDER BY term was found among the output columns.
type placement int

// The placements of a term.
const (
	unplaced   placement = iota // the term names an output column the text cannot tell
	notOutput                   // the term is no output column
	byPosition                  // an integer: the column at that position
	byAlias                     // a name that is an output alias
	byText                      // the same expression as an output item
	byName                      // a name that is the column an output item reads
)

// outputColumn finds the output column (counted from 0) an ORDER BY term
// names, as SQLite, PostgreSQL and MySQL resolve it: a position, then an
// output alias, then an output item's expression, then the name of the
// column an item reads.
func (s *statement) outputColumn(tm term) (int, placement) {
	single := tm.to-tm.from == 1
	t := s.toks[tm.from]
	if single && t.Kind == Number && digits(t.Text) {
		return s.position(t.Text)
	}
	key, named := nameKey(t)
	named = named && single && t.Kind != String
	if named {
		if c, how := s.find(byAlias, func(it item) bool { return it.alias == key }); how != notOutput {
			return c, how
		}
	}
	norm := Normalize(s.text(tm.from, tm.to))
	if c, how := s.find(byText, func(it item) bool { return it.norm == norm }); how != notOutput || !named {
		return c, how
	}
	return s.find(byName, func(it item) bool { return it.name == key })
}

// position places an integer term: the column at that position, counted
// from 1, which must exist where the select list can be counted.
func (s *statement) position(text string) (int, placement) {
	p, err := strconv.ParseInt(text, 10, 64)
	if err != nil || p < 1 || p > int64(len(s.items)) && !s.uncounted() {
		return 0, unplaced
	}
	return int(p - 1), byPosition
}

// uncounted reports whether the statement's columns cannot be counted
// from its select list: none was read, or it holds a *.
func (s *statement) uncounted() bool {
	if s.items == nil {
		return true
	}
	for _, it := range s.items {
		if it.star {
			return true
		}
	}
	return false
}

// find returns the column of the item that matches, placed as how; the
// first of several with the same expression, but an alias or column name
// that more than one item has is unplaced (the engines refuse it or
// choose one by their own rules). An item after a * is notOutput: its
// column is unknown, and the term is added instead.
func (s *statement) find(how placement, match func(item) bool) (int, placement) {
	found := -1
	for i, it := range s.items {
		switch {
		case it.star:
			return found, placed(found, how)
		case !match(it):
		case found < 0:
			found = i
		case how != byText:
			return 0, unplaced
		}
	}
	return found, placed(found, how)
}

// placed is how when a column was found, else notOutput.
func placed(col int, how placement) placement {
	if col < 0 {
		return notOutput
	}
	return how
}
