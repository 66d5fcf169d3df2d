package reward

import (
	"reflect"
	"testing"
)

func TestExactAnswer(t *testing.T) {
	rows := r([]any{int64(1), "a"}, []any{int64(2), "b"}, []any{int64(2), "b"})
	tests := []struct {
		name    string
		rows    [][]any
		ordered bool
		want    *Answer
	}{
		{"ordered: a segment per row", rows, true, &Answer{Segments: []Segment{
			{Rows: rows[0:1], Take: 1}, {Rows: rows[1:2], Take: 1}, {Rows: rows[2:3], Take: 1}}}},
		{"unordered: one segment of every row", rows, false, &Answer{Segments: []Segment{{Rows: rows, Take: 3}}}},
		{"empty, ordered", nil, true, &Answer{}},
		{"empty, unordered", nil, false, &Answer{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExactAnswer(tt.rows, tt.ordered)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ExactAnswer = %+v, want %+v", got, tt.want)
			}
			if !got.Unique() || got.Len() != len(tt.rows) || !reflect.DeepEqual(got.First(), append([][]any{}, tt.rows...)) {
				t.Errorf("Unique %v, Len %d, First %v; want true, %d, the rows", got.Unique(), got.Len(), got.First(), len(tt.rows))
			}
		})
	}
}

func TestAnswerShape(t *testing.T) {
	a, b, one := []any{"a"}, []any{"b"}, []any{1.0}
	tests := []struct {
		name   string
		segs   []Segment
		unique bool
		len    int
		first  [][]any
	}{
		{"no segments", nil, true, 0, [][]any{}},
		{"whole segments", []Segment{{r(a, b), 2}, {r(b), 1}}, true, 3, r(a, b, b)},
		{"a cut segment of different rows", []Segment{{r(a), 1}, {r(a, b), 1}}, false, 2, r(a, a)},
		{"a cut segment of equal rows", []Segment{{r(a, a, a), 2}}, true, 2, r(a, a)},
		{"equal as Match compares: 1 and 1.0", []Segment{{r([]any{int64(1)}, one), 1}}, true, 1, r([]any{int64(1)})},
		{"a segment taking none", []Segment{{r(a, b), 0}, {r(b), 1}}, true, 1, r(b)},
		{"'1' is not 1", []Segment{{r([]any{"1"}, []any{int64(1)}), 1}}, false, 1, r([]any{"1"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans := &Answer{Segments: tt.segs}
			if got := ans.Unique(); got != tt.unique {
				t.Errorf("Unique = %v, want %v", got, tt.unique)
			}
			if got := ans.Len(); got != tt.len {
				t.Errorf("Len = %d, want %d", got, tt.len)
			}
			if got := ans.First(); !reflect.DeepEqual(got, tt.first) {
				t.Errorf("First = %v, want %v", got, tt.first)
			}
		})
	}
}
