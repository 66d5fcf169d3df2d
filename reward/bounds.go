package reward

import (
	"fmt"
	"math"

	"github.com/sqlgym/sqlgym/schemas"
)

// Bounds of a spec's numbers, so that every episode any accepted spec
// pays is finite, and so is any sum of millions of them.
const (
	// MaxWeight bounds the magnitude of every weight (final.* and turn.*),
	// of turn.cap and of final.empty_gold_scale.
	MaxWeight = 1e6
	// MaxEpisodeReward bounds the magnitude of the most one episode can
	// be paid under a spec: EpisodeBound.
	MaxEpisodeReward = 1e8
)

// efficiencyTop is the largest R-VES bucket (RatioBucket).
const efficiencyTop = 1.25

// term is one part of what an episode can be paid, by the keys it comes
// from.
type term struct {
	keys  string
	value float64 // its largest magnitude
}

// EpisodeBound is the largest magnitude one episode's total reward can
// take under spec, however many turns and calls it makes: the turn
// components' running sum never leaves [-turn.cap, turn.cap], and the
// final components are paid once, by the outcome that pays the most. It
// returns the bound and its largest term's keys.
func EpisodeBound(spec schemas.RewardSpec) (float64, string) {
	w := spec.Final
	a := math.Abs
	length := term{"final.length", a(w.Length)}
	shaping := []term{{"final.column_jaccard", a(w.ColumnJaccard)}, {"final.table_jaccard", a(w.TableJaccard)},
		{"final.nonempty", a(w.NonEmpty)}, length}
	correct := append([]term{{"final.correct × final.empty_gold_scale", a(w.Correct) * max(1, w.EmptyGoldScale)},
		{"final.efficiency", a(w.Efficiency) * efficiencyTop}}, shaping...)
	if w.ExecutesOnCorrect {
		correct = append(correct, term{"final.executes", a(w.Executes)})
	}
	mismatch := append([]term{{"final.mismatch", a(w.Mismatch)}, {"final.executes", a(w.Executes)}}, shaping...)
	outcomes := [][]term{correct, mismatch,
		{{"final.pred_error", a(w.PredError)}, length},
		{{"final.pred_timeout", a(w.PredTimeout)}, length},
		{{"final.no_submit", a(w.NoSubmit)}, length}}
	best, top := 0.0, term{"turn.cap", spec.Turn.Cap}
	for _, terms := range outcomes {
		sum := 0.0
		for _, t := range terms {
			sum += t.value
			if t.value > top.value {
				top = t
			}
		}
		best = max(best, sum)
	}
	return spec.Turn.Cap + best, top.keys
}

// checkBounds refuses a spec one of whose weights, or whose episode
// bound, is past MaxWeight or MaxEpisodeReward.
func checkBounds(spec schemas.RewardSpec) error {
	for _, f := range specNumbers(spec) {
		if f.weight && math.Abs(f.value) > MaxWeight {
			return fmt.Errorf("reward.%s: must be within ±%g, got %g", f.key, float64(MaxWeight), f.value)
		}
	}
	if b, top := EpisodeBound(spec); b > MaxEpisodeReward {
		return fmt.Errorf("reward: one episode could be paid %g in magnitude (turn.cap plus the best-paid outcome's final terms), "+
			"more than %g; lower %s", b, float64(MaxEpisodeReward), top)
	}
	return nil
}
