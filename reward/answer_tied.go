package reward

// TiedAnswer builds the answer of an ordered query from what it returned,
// in order, with its sort keys. rows[i] and keys[i] are the i-th row and
// its ORDER BY values: the whole prefix of the ordered result the engine
// gave, at least up to offset+limit and beyond it as far as it was read.
// offset and limit are the query's window; limit < 0 means no LIMIT (the
// window runs to the end of rows). sameKey says whether two rows' keys tie,
// in the engine's own notion (exact, or folded by a collation); nil
// compares them as Match compares values.
//
// Consecutive rows with tying keys form a group. A group wholly inside the
// window is a segment taken whole; a group cut by the window's start or
// end is a segment holding the whole group (as far as it was read) that
// takes only as many rows as lie inside the window; groups outside the
// window are left out. keys == nil means no ORDER BY (a LIMIT alone):
// every row ties with every other, so all of them form one group. When
// keys is not nil it holds one entry per row; rows past its end tie with
// nothing.
//
// complete is false when the read stopped before the result ended: if the
// last group read reaches into the window, it may go on past what was
// read, and the answer is marked Unbounded.
func TiedAnswer(rows, keys [][]any, offset, limit int, sameKey func(a, b []any) bool, complete bool) *Answer {
	start, end := window(len(rows), offset, limit)
	if sameKey == nil {
		sameKey = sameValues
	}
	a := &Answer{}
	for lo := 0; lo < len(rows) && lo < end; {
		hi := groupEnd(rows, keys, lo, sameKey)
		if in := min(hi, end) - max(lo, start); in > 0 {
			a.Segments = append(a.Segments, Segment{Rows: rows[lo:hi:hi], Take: in})
			a.Unbounded = a.Unbounded || (!complete && hi == len(rows))
		}
		lo = hi
	}
	return a
}

// window returns the rows [start, end) of a result of n rows read so far
// that the window offset, limit covers, clamped to them.
func window(n, offset, limit int) (start, end int) {
	start = min(max(offset, 0), n)
	end = n
	if limit >= 0 && limit < n-start {
		end = start + limit
	}
	return start, end
}

// groupEnd returns the end of the group of tying rows that starts at lo.
func groupEnd(rows, keys [][]any, lo int, sameKey func(a, b []any) bool) int {
	if keys == nil {
		return len(rows)
	}
	hi := lo + 1
	for hi < len(rows) && hi < len(keys) && sameKey(keys[hi-1], keys[hi]) {
		hi++
	}
	return hi
}

// sameValues reports whether two key tuples are equal value by value, as
// Match compares values.
func sameValues(a, b []any) bool {
	return string(rowKey(nil, a)) == string(rowKey(nil, b))
}
