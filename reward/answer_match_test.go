package reward

import (
	"math/rand/v2"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

func TestMatchAnswerRules(t *testing.T) {
	ann, bob, cid := []any{"Ann", int64(40)}, []any{"Bob", int64(40)}, []any{"Cid", int64(30)}
	a, b, c := []any{"a"}, []any{"b"}, []any{"c"}
	oldest := &Answer{Segments: []Segment{{r(ann, bob), 1}}} // ORDER BY age DESC LIMIT 1
	byAge := &Answer{Segments: []Segment{{r(ann, bob), 2}, {r(cid), 1}}}
	twoCuts := &Answer{Segments: []Segment{{r(a, b), 1}, {r(b, c), 1}}} // an OFFSET and a LIMIT inside groups
	dup := &Answer{Segments: []Segment{{r(a, a, b), 2}}}
	tests := []struct {
		name         string
		a            *Answer
		pred         [][]any
		ordered      bool
		bird, spider bool
	}{
		{"the first of two tied", oldest, r(ann), true, true, true},
		{"the second of two tied", oldest, r(bob), true, true, true},
		{"one not in the group", oldest, r(cid), true, false, false},
		{"both tied, one too many", oldest, r(ann, bob), true, false, false},
		{"columns swapped: bird strict, spider free", oldest, r([]any{int64(40), "Bob"}), true, false, true},
		{"ties in either order, no LIMIT", byAge, r(bob, ann, cid), true, true, true},
		{"a tied row after a later group", byAge, r(ann, cid, bob), true, true, false},
		{"unordered, any order", byAge, r(cid, bob, ann), false, true, true},
		{"a row left out", byAge, r(ann, cid), true, false, false},
		{"a row twice: bird collapses, spider counts", byAge, r(ann, ann, cid), true, false, false},
		{"two cuts: a then b", twoCuts, r(a, b), true, true, true},
		{"two cuts: b then b", twoCuts, r(b, b), true, true, true},
		{"two cuts: b then c", twoCuts, r(b, c), true, true, true},
		{"two cuts: c then a, ordered", twoCuts, r(c, a), true, true, false},
		{"two cuts: c then a, unordered", twoCuts, r(c, a), false, true, true},
		{"two cuts: a then a", twoCuts, r(a, a), true, false, false},
		{"duplicates: a a", dup, r(a, a), false, true, true},
		{"duplicates: a b", dup, r(b, a), false, true, true},
		{"duplicates: b b", dup, r(b, b), false, false, false},
		{"duplicates: a alone, as a set", dup, r(a), false, true, false},
		{"both empty", &Answer{}, nil, true, true, true},
		{"a segment taking none, empty pred", &Answer{Segments: []Segment{{r(a, b), 0}}}, nil, true, true, true},
		{"empty pred, rows due", oldest, nil, true, false, false},
		{"an answer taking more than it holds", &Answer{Segments: []Segment{{r(a), 2}}}, r(a, a), false, false, false},
		{"ragged pred", oldest, r([]any{"Ann"}), true, false, false},
	}
	bird, spider := schemas.RewardSpec{Match: schemas.MatchBird}, schemas.RewardSpec{Match: schemas.MatchSpider}
	tolerant := schemas.RewardSpec{Match: schemas.MatchTolerant, FloatTolerance: 1e-6}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchAnswer(bird, tt.pred, tt.a, tt.ordered); got != tt.bird {
				t.Errorf("bird = %v, want %v", got, tt.bird)
			}
			if got := MatchAnswer(spider, tt.pred, tt.a, tt.ordered); got != tt.spider {
				t.Errorf("spider = %v, want %v", got, tt.spider)
			}
			if got := MatchAnswer(tolerant, tt.pred, tt.a, tt.ordered); got != tt.spider {
				t.Errorf("tolerant = %v, want %v (as spider)", got, tt.spider)
			}
		})
	}
}

func TestMatchAnswerTolerant(t *testing.T) {
	near := func(f float64) [][]any { return r([]any{"x", f}) }
	top := &Answer{Segments: []Segment{{r([]any{"x", 1.0}, []any{"y", 1.0}), 1}}}
	tests := []struct {
		name    string
		pred    [][]any
		tol     float64
		ordered bool
		want    bool
	}{
		{"within the tolerance", near(1.0005), 1e-3, true, true},
		{"past it", near(1.002), 1e-3, true, false},
		{"no tolerance", near(1.0005), 0, true, false},
		{"columns swapped, within", r([]any{1.0005, "x"}), 1e-3, false, true},
		{"text compares exactly", r([]any{"z", 1.0}), 0.5, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := schemas.RewardSpec{Match: schemas.MatchTolerant, FloatTolerance: tt.tol}
			if got := MatchAnswer(spec, tt.pred, top, tt.ordered); got != tt.want {
				t.Errorf("MatchAnswer = %v, want %v", got, tt.want)
			}
		})
	}
}

// uniqueAnswer draws an answer with one right answer from rows: ordered,
// one segment per row, some taking none; unordered, segments taken whole,
// or some copies of one row (ints written as floats in some) cut.
func uniqueAnswer(rng *rand.Rand, rows [][]any, ordered bool) *Answer {
	a := &Answer{}
	for i := 0; i < len(rows); {
		n := 1 + rng.IntN(4)
		if ordered {
			n = 1
		}
		s := Segment{Rows: rows[i:min(i+n, len(rows))]}
		s.Take = len(s.Rows)
		switch {
		case ordered && rng.IntN(8) == 0:
			s.Take = 0
		case !ordered && rng.IntN(4) == 0:
			n = 1
			s.Rows = r(rows[i], asFloats(rows[i]), rows[i])
			s.Take = 1 + rng.IntN(2)
		}
		a.Segments = append(a.Segments, s)
		i += n
	}
	return a
}

// asFloats returns row with its ints written as floats: equal to it.
func asFloats(row []any) []any {
	out := make([]any, len(row))
	for i, v := range row {
		if n, ok := v.(int64); ok {
			v = float64(n)
		}
		out[i] = v
	}
	return out
}

// TestMatchAnswerFastPath checks that on an answer with one right answer,
// unordered or of one row per segment, MatchAnswer and its search alike
// are Match against that answer.
func TestMatchAnswerFastPath(t *testing.T) {
	specs := []schemas.RewardSpec{
		{Match: schemas.MatchBird},
		{Match: schemas.MatchSpider},
		{Match: schemas.MatchTolerant, FloatTolerance: 1e-3},
	}
	values := tieValues()
	for _, spec := range specs {
		for _, ordered := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(11, uint64(len(spec.Match))))
			counts := map[bool]int{}
			for range 3000 {
				cols := 1 + rng.IntN(3)
				rows := make([][]any, rng.IntN(12))
				for i := range rows {
					rows[i] = make([]any, cols)
					for c := range rows[i] {
						rows[i][c] = values[rng.IntN(len(values))]
					}
				}
				a := uniqueAnswer(rng, rows, ordered)
				if !a.Unique() || (ordered && !a.singleRows()) {
					t.Fatalf("not a fast-path answer: %+v", a.Segments)
				}
				pred := derivedPred(rng, a, ordered, cols)
				mutate(rng, pred, func() any { return values[rng.IntN(len(values))] })
				want := Match(spec, pred, a.First(), ordered)
				if got := MatchAnswer(spec, pred, a, ordered); got != want {
					t.Fatalf("%s ordered=%v: MatchAnswer = %v, Match = %v\npred %v\nanswer %+v", spec.Match, ordered, got, want, pred, a.Segments)
				}
				if got := matchAnswer(spec, pred, a, ordered); got != want {
					t.Fatalf("%s ordered=%v: the search = %v, Match = %v\npred %v\nanswer %+v", spec.Match, ordered, got, want, pred, a.Segments)
				}
				counts[want]++
			}
			if counts[true] < 500 || counts[false] < 500 {
				t.Errorf("%s ordered=%v: matches %d, mismatches %d: too few of one", spec.Match, ordered, counts[true], counts[false])
			}
		}
	}
}

// TestMatchAnswerBudget: a search that runs out of work reports no match,
// where one with enough finds it.
func TestMatchAnswerBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, plain := tiedTop(rng)
	pred := columnsPermuted(plain, rng.Perm(4))
	for _, tt := range []struct {
		name string
		tol  float64
		work int
		want bool
	}{
		{"spider, enough", 0, tieSearchWork, true},
		{"spider, too little", 0, 1000, false},
		{"tolerant, enough", 1e-6, tieTolWork, true},
		{"tolerant, too little", 1e-6, 1000, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTieMatch(pred, a, false, tt.work)
			fits := m.exactFits
			if tt.tol > 0 {
				m, _ = newTolMatch(nudged(pred), a, false, tt.tol, tt.work)
				fits = m.tolFits
			}
			if got := m.search(fits); got != tt.want {
				t.Errorf("search = %v, want %v (work left %d)", got, tt.want, m.work.left)
			}
		})
	}
}
