package reward

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// eachAnswer calls yield with every right answer of a, until yield
// returns false: every choice of Take rows of each segment and, ordered,
// every order of the rows chosen within a segment. It reports whether it
// went through them all.
func eachAnswer(a *Answer, ordered bool, yield func([][]any) bool) bool {
	var walk func(seg int, acc [][]any) bool
	walk = func(seg int, acc [][]any) bool {
		if seg == len(a.Segments) {
			return yield(acc)
		}
		s := a.Segments[seg]
		return eachChoice(s.Rows, s.Take, ordered, func(rows [][]any) bool {
			return walk(seg+1, append(acc[:len(acc):len(acc)], rows...))
		})
	}
	return walk(0, nil)
}

// eachChoice calls yield with every choice of take of rows (by position),
// in every order when ordered is set.
func eachChoice(rows [][]any, take int, ordered bool, yield func([][]any) bool) bool {
	var walk func(from int, acc [][]any) bool
	walk = func(from int, acc [][]any) bool {
		if len(acc) == take {
			if ordered {
				return eachOrder(acc, yield)
			}
			return yield(acc)
		}
		for i := from; i < len(rows); i++ {
			if !walk(i+1, append(acc[:len(acc):len(acc)], rows[i])) {
				return false
			}
		}
		return true
	}
	return walk(0, nil)
}

// eachOrder calls yield with every order of rows.
func eachOrder(rows [][]any, yield func([][]any) bool) bool {
	if len(rows) <= 1 {
		return yield(rows)
	}
	for i := range rows {
		rest := slices.Concat(rows[:i:i], rows[i+1:])
		ok := eachOrder(rest, func(tail [][]any) bool {
			return yield(append([][]any{rows[i]}, tail...))
		})
		if !ok {
			return false
		}
	}
	return true
}

// bruteAnswerMatch reports whether pred matches some right answer of a, by
// trying each with Match.
func bruteAnswerMatch(spec schemas.RewardSpec, pred [][]any, a *Answer, ordered bool) bool {
	found := false
	eachAnswer(a, ordered, func(ans [][]any) bool {
		found = Match(spec, pred, ans, ordered)
		return !found
	})
	return found
}

// tieCase is a small random answer and a prediction to match against it.
type tieCase struct {
	a       *Answer
	pred    [][]any
	ordered bool
}

// tieValues are the values small random answers draw from: equal pairs
// across types (1 and 1.0), near numbers for the tolerant mode, and
// values of other classes.
func tieValues() []any {
	return []any{int64(0), int64(1), 1.0, 1.0004, 2.5, 2.5004, "a", "b", nil}
}

// randomTieCase draws an answer of up to 3 segments of up to 4 rows of up
// to 3 columns, and a prediction: usually one of its right answers,
// columns permuted and rows shuffled as the match mode allows, often then
// changed a little; sometimes rows drawn at random.
func randomTieCase(rng *rand.Rand) tieCase {
	cols := 1 + rng.IntN(3)
	values := tieValues()
	value := func() any { return values[rng.IntN(len(values))] }
	row := func() []any {
		r := make([]any, cols)
		for i := range r {
			r[i] = value()
		}
		return r
	}
	a := &Answer{}
	for range 1 + rng.IntN(3) {
		s := Segment{Rows: make([][]any, 1+rng.IntN(4))}
		for i := range s.Rows {
			s.Rows[i] = row()
		}
		s.Take = len(s.Rows)
		if rng.IntN(2) == 0 {
			s.Take = rng.IntN(len(s.Rows))
		}
		a.Segments = append(a.Segments, s)
	}
	c := tieCase{a: a, ordered: rng.IntN(2) == 0}
	if rng.IntN(5) == 0 {
		for range a.Len() + rng.IntN(3) - 1 {
			c.pred = append(c.pred, row())
		}
		return c
	}
	c.pred = derivedPred(rng, a, c.ordered, cols)
	mutate(rng, c.pred, value)
	return c
}

// derivedPred returns a random right answer of a, its columns permuted
// and its rows shuffled (within each segment's chunk when ordered).
func derivedPred(rng *rand.Rand, a *Answer, ordered bool, cols int) [][]any {
	perm := rng.Perm(cols)
	var pred [][]any
	for _, s := range a.Segments {
		idx := rng.Perm(len(s.Rows))[:s.Take]
		for _, i := range idx {
			r := make([]any, cols)
			for j, c := range perm {
				r[j] = s.Rows[i][c]
			}
			pred = append(pred, r)
		}
	}
	if !ordered {
		rng.Shuffle(len(pred), func(i, j int) { pred[i], pred[j] = pred[j], pred[i] })
	}
	return pred
}

// mutate changes pred a little, half the time: one value, or two rows
// swapped.
func mutate(rng *rand.Rand, pred [][]any, value func() any) {
	if len(pred) == 0 || rng.IntN(2) == 0 {
		return
	}
	i := rng.IntN(len(pred))
	if rng.IntN(2) == 0 {
		pred[i] = slices.Clone(pred[i])
		pred[i][rng.IntN(len(pred[i]))] = value()
		return
	}
	j := rng.IntN(len(pred))
	pred[i], pred[j] = pred[j], pred[i]
}

// bruteCases is how many random answers TestMatchAnswerBrute draws per
// mode. Planted faults in the bird, spider and tolerant searches (a
// segment's take off by one, a duplicate row's capacity lost) were each
// caught within the first 461 cases of these seeds; 1500 keeps a margin
// of three over that, and trying every right answer under the race
// detector makes each case costly.
const bruteCases = 1500

// TestMatchAnswerBrute checks MatchAnswer, and its search without the
// fast path, against trying every right answer with Match, on small
// random answers, in every mode, ordered and not.
func TestMatchAnswerBrute(t *testing.T) {
	specs := []schemas.RewardSpec{
		{Match: schemas.MatchBird},
		{Match: schemas.MatchSpider},
		{Match: schemas.MatchTolerant, FloatTolerance: 1e-3},
		{Match: schemas.MatchTolerant, FloatTolerance: 0.5},
		{Match: schemas.MatchTolerant, FloatTolerance: 2},
	}
	for _, spec := range specs {
		t.Run(fmt.Sprintf("%s/%g", spec.Match, spec.FloatTolerance), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(spec.FloatTolerance*1e4)))
			counts := map[bool]int{}
			for range bruteCases {
				c := randomTieCase(rng)
				want := bruteAnswerMatch(spec, c.pred, c.a, c.ordered)
				if got := MatchAnswer(spec, c.pred, c.a, c.ordered); got != want {
					t.Fatalf("MatchAnswer(ordered=%v) = %v, want %v\npred %v\nanswer %+v", c.ordered, got, want, c.pred, c.a.Segments)
				}
				if got := matchAnswer(spec, c.pred, c.a, c.ordered); got != want {
					t.Fatalf("matchAnswer(ordered=%v) = %v, want %v\npred %v\nanswer %+v", c.ordered, got, want, c.pred, c.a.Segments)
				}
				counts[want]++
			}
			t.Logf("matches %d, mismatches %d", counts[true], counts[false])
			if counts[true] < bruteCases/4 || counts[false] < bruteCases/4 {
				t.Errorf("matches %d, mismatches %d: the cases test too little of one side", counts[true], counts[false])
			}
		})
	}
}
