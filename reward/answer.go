package reward

// Answer is every result a query may rightly return. Its rows come in
// segments, in order; a right answer takes Take rows of each segment's Rows
// (all of them when Take == len(Rows)). Under ordered comparison the
// segments keep their order and the rows taken from one segment may come
// in any order among themselves; unordered, only which rows are taken
// counts.
//
// A gold whose ORDER BY leaves ties, or whose LIMIT cuts through them, has
// such an answer (TiedAnswer); a result with no ties has exactly one
// (ExactAnswer). Every segment holds 0 <= Take <= len(Rows); an answer
// that breaks this has no right answer and matches nothing.
type Answer struct {
	// Segments are the answer's parts, in order.
	Segments []Segment
	// Unbounded is set when the rows were read only in part and the read
	// stopped inside a group that reaches into the answer: the group may
	// hold rows its segment lacks, so some right answers are missing.
	Unbounded bool
}

// Segment is one part of an Answer: Take of its Rows, in any order.
type Segment struct {
	// Rows are the rows the segment chooses from (a group of rows that tie).
	Rows [][]any
	// Take is how many of Rows every right answer holds.
	Take int
}

// ExactAnswer is the answer of a result with no ties: rows as they are.
// Ordered, it has one segment per row, so MatchAnswer is exactly Match;
// unordered, one segment that takes every row.
func ExactAnswer(rows [][]any, ordered bool) *Answer {
	if len(rows) == 0 {
		return &Answer{}
	}
	if !ordered {
		return &Answer{Segments: []Segment{{Rows: rows, Take: len(rows)}}}
	}
	segs := make([]Segment, len(rows))
	for i := range rows {
		segs[i] = Segment{Rows: rows[i : i+1 : i+1], Take: 1}
	}
	return &Answer{Segments: segs}
}

// Len is the number of rows in every right answer.
func (a *Answer) Len() int {
	n := 0
	for _, s := range a.Segments {
		n += s.Take
	}
	return n
}

// First is one right answer: the first Take rows of each segment, in
// segment order.
func (a *Answer) First() [][]any {
	out := make([][]any, 0, a.Len())
	for _, s := range a.Segments {
		out = append(out, s.Rows[:min(max(s.Take, 0), len(s.Rows))]...)
	}
	return out
}

// Unique reports whether a has exactly one right answer, up to the order
// of rows within a segment: every segment takes all its rows or none, or
// holds rows that are all equal (as Match compares values).
func (a *Answer) Unique() bool {
	for _, s := range a.Segments {
		if s.Take != 0 && s.Take != len(s.Rows) && !sameRows(s.Rows) {
			return false
		}
	}
	return true
}

// valid reports whether every segment takes between none and all of its
// rows.
func (a *Answer) valid() bool {
	for _, s := range a.Segments {
		if s.Take < 0 || s.Take > len(s.Rows) {
			return false
		}
	}
	return true
}

// singleRows reports whether every segment holds at most one row: then
// ordered comparison leaves nothing to tie order.
func (a *Answer) singleRows() bool {
	for _, s := range a.Segments {
		if len(s.Rows) > 1 {
			return false
		}
	}
	return true
}

// sameRows reports whether every row equals the first, value by value.
func sameRows(rows [][]any) bool {
	var first, buf []byte
	for i, row := range rows {
		buf = rowKey(buf[:0], row)
		if i == 0 {
			first = append(first, buf...)
		} else if string(buf) != string(first) {
			return false
		}
	}
	return true
}

// rowKey appends the key of a row: its width, then its values' keys, so
// that two rows get one key exactly when they are equal value by value.
func rowKey(b []byte, row []any) []byte {
	b = appendInt(b, int64(len(row)))
	for _, v := range row {
		b = appendKey(b, v)
	}
	return b
}
