package failovertest

import (
	"math"
	"strings"
	"testing"
)

// TestSameStepsCatches: the store check refuses a lost step, a step run
// twice, a reward that differs and an end that differs.
func TestSameStepsCatches(t *testing.T) {
	correct := "correct"
	e := episodeLog{Steps: []stepLog{{Turn: 1}, {Turn: 2, Reward: -0.02}, {Turn: 3, Reward: 1, Outcome: &correct}}}
	good := &stored{ended: true, outcome: "correct", turns: []int{1, 2, 3}, rewards: []float64{0, -0.02, 1}}
	if err := sameSteps(e, good); err != nil {
		t.Fatalf("the same episode: %v", err)
	}
	for name, c := range map[string]struct {
		s    stored
		want string
	}{
		"lost":     {stored{true, "correct", []int{1, 3}, []float64{0, 1}}, "turns [1 3]"},
		"twice":    {stored{true, "correct", []int{1, 2, 2, 3}, []float64{0, -0.02, -0.02, 1}}, "turns [1 2 2 3]"},
		"reward":   {stored{true, "correct", []int{1, 2, 3}, []float64{0, 0, 1}}, "turn 2: acknowledged reward -0.02"},
		"open":     {stored{false, "", []int{1, 2, 3}, []float64{0, -0.02, 1}}, "ended false"},
		"outcome":  {stored{true, "mismatch", []int{1, 2, 3}, []float64{0, -0.02, 1}}, `as "mismatch"`},
		"numbered": {stored{true, "correct", []int{1, 2, 4}, []float64{0, -0.02, 1}}, "stored as turn 4"},
	} {
		err := sameSteps(e, &c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

// TestHistogramQuantile: quantiles are interpolated within the bucket,
// as Prometheus's histogram_quantile does.
func TestHistogramQuantile(t *testing.T) {
	h := histogram{0.1: 50, 1: 90, 10: 100, math.Inf(1): 100}
	for q, want := range map[float64]float64{0.5: 0.1, 0.25: 0.05, 0.7: 0.55, 0.95: 5.5} {
		if got := h.quantile(q); math.Abs(got-want) > 1e-9 {
			t.Errorf("quantile(%v) = %v, want %v", q, got, want)
		}
	}
	if got := quantile([]float64{3, 1, 2, 4}, 0.5); got != 2 {
		t.Errorf("median of 1..4 = %v, want 2", got)
	}
}
