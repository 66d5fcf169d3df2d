package reward

import (
	"reflect"
	"strings"
	"testing"
)

// seg is an expected segment: rows [lo, hi) of the input, taking take.
type seg struct{ lo, hi, take int }

// keyed returns one row per key, (i, key), and the keys as one-value
// tuples.
func keyed(keys ...any) (rows, ks [][]any) {
	for i, k := range keys {
		rows = append(rows, []any{int64(i), k})
		ks = append(ks, []any{k})
	}
	return rows, ks
}

// tiedCase is a result, its window and the answer TiedAnswer should make
// of it.
type tiedCase struct {
	name          string
	keys          []any // nil: no ORDER BY
	n             int   // rows, when keys is nil
	offset, limit int
	sameKey       func(a, b []any) bool
	complete      bool
	want          []seg
	unbounded     bool
}

func tiedCases() []tiedCase {
	folded := func(a, b []any) bool { return strings.EqualFold(a[0].(string), b[0].(string)) }
	return []tiedCase{
		{name: "no ties", keys: []any{int64(3), int64(2), int64(1)}, limit: 2, complete: true,
			want: []seg{{0, 1, 1}, {1, 2, 1}}},
		{name: "cut at the end: two share the greatest age", keys: []any{int64(40), int64(40), int64(30)}, limit: 1, complete: true,
			want: []seg{{0, 2, 1}}},
		{name: "cut at the end, read past the window", keys: []any{int64(50), int64(40), int64(40), int64(40), int64(30)}, limit: 2, complete: true,
			want: []seg{{0, 1, 1}, {1, 4, 1}}},
		{name: "cut at the start by an offset", keys: []any{int64(1), int64(1), int64(1), int64(2), int64(3)}, offset: 2, limit: 2, complete: true,
			want: []seg{{0, 3, 1}, {3, 4, 1}}},
		{name: "cut at both ends", keys: []any{int64(1), int64(1), int64(2), int64(3), int64(3)}, offset: 1, limit: 3, complete: true,
			want: []seg{{0, 2, 1}, {2, 3, 1}, {3, 5, 1}}},
		{name: "a window inside one group", keys: []any{int64(5), int64(5), int64(5), int64(5), int64(5), int64(6)}, offset: 1, limit: 2, complete: true,
			want: []seg{{0, 5, 2}}},
		{name: "no LIMIT: ties whole", keys: []any{int64(1), int64(1), int64(2)}, limit: -1, complete: true,
			want: []seg{{0, 2, 2}, {2, 3, 1}}},
		{name: "no ORDER BY: every row ties", n: 5, limit: 2, complete: true,
			want: []seg{{0, 5, 2}}},
		{name: "no ORDER BY, an offset", n: 5, offset: 1, limit: 2, complete: true,
			want: []seg{{0, 5, 2}}},
		{name: "no ORDER BY, the window takes all", n: 3, limit: 3, complete: true,
			want: []seg{{0, 3, 3}}},
		{name: "no ORDER BY, read stopped", n: 4, limit: 2,
			want: []seg{{0, 4, 2}}, unbounded: true},
		{name: "read stopped inside the cut group", keys: []any{int64(1), int64(2), int64(2)}, limit: 2,
			want: []seg{{0, 1, 1}, {1, 3, 1}}, unbounded: true},
		{name: "read stopped after the cut group ended", keys: []any{int64(1), int64(2), int64(2), int64(3)}, limit: 2,
			want: []seg{{0, 1, 1}, {1, 3, 1}}},
		{name: "read stopped at the window's end", keys: []any{int64(1), int64(2)}, limit: 2,
			want: []seg{{0, 1, 1}, {1, 2, 1}}, unbounded: true},
		{name: "offset past the rows", keys: []any{int64(1), int64(2)}, offset: 5, limit: 2, complete: true},
		{name: "LIMIT 0", keys: []any{int64(1), int64(1)}, limit: 0, complete: true},
		{name: "values compared as Match does: 1 ties 1.0", keys: []any{int64(1), 1.0, 1.5}, limit: 1, complete: true,
			want: []seg{{0, 2, 1}}},
		{name: "NULLs tie", keys: []any{nil, nil, int64(1)}, limit: 1, complete: true,
			want: []seg{{0, 2, 1}}},
		{name: "exact keys: 'a' and 'A' differ", keys: []any{"a", "A", "b"}, limit: 1, complete: true,
			want: []seg{{0, 1, 1}}},
		{name: "folded keys: 'a' and 'A' tie", keys: []any{"a", "A", "b"}, limit: 1, sameKey: folded, complete: true,
			want: []seg{{0, 2, 1}}},
	}
}

func TestTiedAnswer(t *testing.T) {
	for _, tt := range tiedCases() {
		t.Run(tt.name, func(t *testing.T) {
			rows, keys := keyed(tt.keys...)
			if tt.keys == nil {
				rows, _ = keyed(make([]any, tt.n)...)
			}
			got := TiedAnswer(rows, keys, tt.offset, tt.limit, tt.sameKey, tt.complete)
			want := &Answer{Unbounded: tt.unbounded}
			for _, s := range tt.want {
				want.Segments = append(want.Segments, Segment{Rows: rows[s.lo:s.hi], Take: s.take})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("TiedAnswer = %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestTiedAnswerShortKeys: rows past the end of keys tie with nothing.
func TestTiedAnswerShortKeys(t *testing.T) {
	rows, keys := keyed(int64(1), int64(1), int64(1))
	got := TiedAnswer(rows, keys[:1], 0, 2, nil, true)
	want := &Answer{Segments: []Segment{{Rows: rows[0:1], Take: 1}, {Rows: rows[1:2], Take: 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TiedAnswer = %+v\nwant %+v", got, want)
	}
}
