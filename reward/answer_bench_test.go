package reward

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// tiedTop returns the answer of ORDER BY score LIMIT 1000 over 1,050
// rows of (id, name, score, flag) whose last 100 share one score, so the
// LIMIT cuts that group in half; and a right answer that takes 50 other
// rows of the group, in another order.
func tiedTop(rng *rand.Rand) (*Answer, [][]any) {
	rows := make([][]any, 1050)
	keys := make([][]any, len(rows))
	for i := range rows {
		score := float64(i) + 0.25
		if i >= 950 {
			score = 999.5
		}
		rows[i] = []any{int64(i), fmt.Sprint("name", i%300), score, int64(i % 2)}
		keys[i] = []any{score}
	}
	a := TiedAnswer(rows, keys, 0, 1000, nil, true)
	pred := rows[:950:950]
	for _, i := range rng.Perm(100)[:50] {
		pred = append(pred, rows[950+i])
	}
	return a, pred
}

// columnsPermuted returns rows with their columns reordered by perm.
func columnsPermuted(rows [][]any, perm []int) [][]any {
	out := make([][]any, len(rows))
	for i, row := range rows {
		out[i] = make([]any, len(perm))
		for j, c := range perm {
			out[i][j] = row[c]
		}
	}
	return out
}

// nudged returns rows with every float off by a relative 1e-9.
func nudged(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, row := range rows {
		out[i] = make([]any, len(row))
		for c, v := range row {
			if f, ok := v.(float64); ok {
				v = f * (1 + 1e-9)
			}
			out[i][c] = v
		}
	}
	return out
}

// BenchmarkMatchAnswer matches a right answer against a 1,000-row answer
// whose LIMIT cuts a group of 100 tied rows, in each mode.
func BenchmarkMatchAnswer(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, plain := tiedTop(rng)
	pred := columnsPermuted(plain, rng.Perm(4))
	bird := schemas.RewardSpec{Match: schemas.MatchBird}
	spider := schemas.RewardSpec{Match: schemas.MatchSpider}
	tolerant := schemas.RewardSpec{Match: schemas.MatchTolerant, FloatTolerance: 1e-6}
	cases := []struct {
		name    string
		spec    schemas.RewardSpec
		pred    [][]any
		ordered bool
	}{
		{"spider/ordered", spider, pred, true},
		{"spider/unordered", spider, pred, false},
		{"bird", bird, plain, true},
		{"tolerant/ordered", tolerant, nudged(pred), true},
		{"tolerant/unordered", tolerant, nudged(pred), false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if !MatchAnswer(c.spec, c.pred, a, c.ordered) {
					b.Fatal("no match")
				}
			}
		})
	}
}

// BenchmarkMatchAnswerWide matches 26 columns of 1,000 rows sorted by a
// column of two values, under LIMIT 700: a group of about 500 rows cut.
func BenchmarkMatchAnswerWide(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	rows := wideRows(rng, 1000, 26)
	slices.SortStableFunc(rows, func(x, y []any) int { return cmp.Compare(x[0].(int64), y[0].(int64)) })
	keys := make([][]any, len(rows))
	for i := range rows {
		keys[i] = rows[i][:1]
	}
	a := TiedAnswer(rows, keys, 0, 700, nil, true)
	for _, ordered := range []bool{true, false} {
		pred := derivedPred(rng, a, ordered, 26)
		for _, c := range []struct {
			spec schemas.RewardSpec
			pred [][]any
		}{
			{schemas.RewardSpec{Match: schemas.MatchSpider}, pred},
			{schemas.RewardSpec{Match: schemas.MatchTolerant, FloatTolerance: 1e-6}, nudged(pred)},
		} {
			b.Run(fmt.Sprintf("%s/ordered=%v", c.spec.Match, ordered), func(b *testing.B) {
				for b.Loop() {
					if !MatchAnswer(c.spec, c.pred, a, ordered) {
						b.Fatal("no match")
					}
				}
			})
		}
	}
}
