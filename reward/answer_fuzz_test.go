package reward

import (
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// byteReader hands out the bytes of a fuzz input, then zeros.
type byteReader []byte

func (b *byteReader) next() int {
	if len(*b) == 0 {
		return 0
	}
	v := (*b)[0]
	*b = (*b)[1:]
	return int(v)
}

// fuzzAnswer decodes an answer, a prediction and how to compare them: a
// head byte (bits 0-1 the mode, bit 2 ordered, bits 3-4 the width, bit 7
// a ragged last pred row), a segment count, per segment a row count, a
// Take (which may exceed it) and the rows, then a pred row count and its
// rows; each value is a byte indexing tieValues.
func fuzzAnswer(data []byte) (spec schemas.RewardSpec, pred [][]any, a *Answer, ordered bool) {
	in := byteReader(data)
	head := in.next()
	spec = []schemas.RewardSpec{{Match: schemas.MatchBird}, {Match: schemas.MatchSpider},
		{Match: schemas.MatchTolerant, FloatTolerance: 1e-3}, {Match: schemas.MatchTolerant, FloatTolerance: 0.5}}[head&3]
	ordered = head&4 != 0
	cols := 1 + (head>>3&3)%3
	values := tieValues()
	rows := func(n int) [][]any {
		out := make([][]any, n)
		for i := range out {
			out[i] = make([]any, cols)
			for c := range out[i] {
				out[i][c] = values[in.next()%len(values)]
			}
		}
		return out
	}
	a = &Answer{}
	for range in.next() % 4 {
		n := in.next() % 5
		take := in.next() % (n + 2)
		a.Segments = append(a.Segments, Segment{Rows: rows(n), Take: take})
	}
	pred = rows(in.next() % 9)
	if head&0x80 != 0 && len(pred) > 0 {
		pred[len(pred)-1] = pred[len(pred)-1][:cols-1]
	}
	return spec, pred, a, ordered
}

// FuzzMatchAnswer checks MatchAnswer against trying every right answer
// with Match (when there are not too many), that a right answer matches
// its own answer, and that the search agrees with Match wherever the fast
// path would take over.
func FuzzMatchAnswer(f *testing.F) {
	f.Add([]byte{0x05, 1, 2, 1, 6, 7, 1, 6})                      // spider, ordered: one of two tied
	f.Add([]byte{0x0c, 2, 2, 1, 0, 1, 2, 3, 2, 1, 4, 1, 2, 1, 2}) // bird, two cut segments
	f.Add([]byte{0x0a, 1, 3, 2, 1, 3, 5, 1, 4})                   // tolerant, unordered
	f.Add([]byte{0x8d, 1, 2, 2, 0, 1, 6, 7, 1, 1})                // ragged pred
	f.Add([]byte{0x01, 2, 1, 1, 5, 2, 2, 6, 7, 3, 5, 6, 7})       // spider, whole segments
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, pred, a, ordered := fuzzAnswer(data)
		got := MatchAnswer(spec, pred, a, ordered)
		want, calls := false, 0
		if eachAnswer(a, ordered, func(ans [][]any) bool {
			calls++
			want = want || Match(spec, pred, ans, ordered)
			return calls < 2000
		}) && got != want {
			t.Fatalf("MatchAnswer = %v, some right answer matches: %v\npred %v\nanswer %+v", got, want, pred, a.Segments)
		}
		if a.valid() && !MatchAnswer(spec, a.First(), a, ordered) {
			t.Fatalf("First does not match its answer %+v", a.Segments)
		}
		if a.valid() && a.Unique() && (!ordered || a.singleRows()) {
			if got, want := matchAnswer(spec, pred, a, ordered), Match(spec, pred, a.First(), ordered); got != want {
				t.Fatalf("the search = %v, Match = %v\npred %v\nanswer %+v", got, want, pred, a.Segments)
			}
		}
	})
}

// FuzzTiedAnswer builds answers from decoded ordered results: a row count,
// an offset, a limit (-1 for none), a flags byte (bit 0 complete, bit 1 no
// ORDER BY), then a small sort key per row.
func FuzzTiedAnswer(f *testing.F) {
	f.Add([]byte{5, 0, 2, 1, 4, 4, 4, 3, 2})
	f.Add([]byte{6, 2, 3, 0, 1, 1, 2, 2, 2, 3})
	f.Add([]byte{4, 1, 0, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := byteReader(data)
		n, offset, limit, flags := in.next()%12, in.next()%6, in.next()%8-1, in.next()
		rows, keys := make([][]any, n), make([][]any, n)
		for i := range rows {
			k := int64(in.next() % 4)
			rows[i], keys[i] = []any{int64(i), k}, []any{k}
		}
		if flags&2 != 0 {
			keys = nil
		}
		a := TiedAnswer(rows, keys, offset, limit, nil, flags&1 != 0)
		checkTied(t, a, rows, keys, offset, limit, flags&1 != 0)
	})
}

// checkTied checks an answer TiedAnswer built: its segments are maximal
// runs of tying rows, in order, covering the window; the engine's own
// window is one of its right answers; and it is Unbounded exactly when
// the read stopped inside its last segment's group.
func checkTied(t *testing.T, a *Answer, rows, keys [][]any, offset, limit int, complete bool) {
	start, end := window(len(rows), offset, limit)
	if a.Len() != end-start {
		t.Fatalf("Len = %d, window [%d, %d)", a.Len(), start, end)
	}
	at := -1
	for _, s := range a.Segments {
		lo := int(s.Rows[0][0].(int64))
		if at >= 0 && lo != at {
			t.Fatalf("segments not consecutive: %+v", a.Segments)
		}
		at = lo + len(s.Rows)
		for i := lo + 1; keys != nil && i < at; i++ {
			if !sameValues(keys[i-1], keys[i]) {
				t.Fatalf("a segment holds rows that do not tie: %+v", a.Segments)
			}
		}
		if keys != nil && at < len(rows) && sameValues(keys[at-1], keys[at]) {
			t.Fatalf("a group split between segments: %+v", a.Segments)
		}
	}
	if want := !complete && at == len(rows); a.Unbounded != want {
		t.Fatalf("Unbounded = %v, want %v (segments %+v)", a.Unbounded, want, a.Segments)
	}
	for _, spec := range []schemas.RewardSpec{{Match: schemas.MatchBird}, {Match: schemas.MatchSpider}} {
		for _, ordered := range []bool{false, true} {
			if !MatchAnswer(spec, rows[start:end], a, ordered) {
				t.Fatalf("%s ordered=%v: the engine's own window does not match %+v", spec.Match, ordered, a.Segments)
			}
		}
	}
}
