package reward

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestOverflowingWeightsAreRefused: weights that are finite but whose
// sums are not (1.7e308 twice is +Inf) are refused, naming the key.
func TestOverflowingWeightsAreRefused(t *testing.T) {
	tests := []struct{ override, want string }{
		{`{"final": {"no_submit": 1.7e308}, "turn": {"ok": 1.7e308, "cap": 1.7e308}}`, "reward.final.no_submit: must be within ±1e+06, got 1.7e+308"},
		{`{"turn": {"cap": 1e7}}`, "reward.turn.cap: must be within ±1e+06"},
		{`{"final": {"mismatch": -1e300}}`, "reward.final.mismatch: must be within ±1e+06"},
		{`{"final": {"empty_gold_scale": 2e6}}`, "reward.final.empty_gold_scale: must be within ±1e+06"},
		{`{"final": {"correct": 1e6, "empty_gold_scale": 1000}}`, "lower final.correct × final.empty_gold_scale"},
	}
	for _, tt := range tests {
		_, err := Resolve(schemas.DefaultRewardSpec(), json.RawMessage(tt.override))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%s) = %v, want an error containing %q", tt.override, err, tt.want)
		}
	}
	// Past the bounds only: float_tolerance and length_tokens weigh nothing.
	ok := `{"final": {"correct": -1e6, "length": 1e6, "length_tokens": 1e12}, "turn": {"cap": 1e6, "ok": 1e6}, "float_tolerance": 1e12}`
	if _, err := Resolve(schemas.DefaultRewardSpec(), json.RawMessage(ok)); err != nil {
		t.Errorf("Resolve(%s) = %v, want it accepted", ok, err)
	}
}

// TestEveryAcceptedSpecPaysFinitely pays random long episodes under
// specs at the bounds: every step's reward and every total is finite and
// within EpisodeBound.
func TestEveryAcceptedSpecPaysFinitely(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	outcomes := []string{schemas.OutcomeCorrect, schemas.OutcomeMismatch, schemas.OutcomePredError,
		schemas.OutcomePredTimeout, schemas.OutcomeNoSubmit, schemas.OutcomeAbandoned, schemas.OutcomeGoldError}
	for i := range 200 {
		spec := extremeSpec(rng)
		if err := Validate(spec); err != nil {
			t.Fatalf("spec %d: %v", i, err)
		}
		bound, _ := EpisodeBound(spec)
		l := NewLedger(spec)
		for range 1 + rng.IntN(300) {
			if _, r := l.Step(Turn(rng.IntN(4)), nil); math.IsInf(r, 0) || math.IsNaN(r) {
				t.Fatalf("spec %d: a turn paid %v", i, r)
			}
		}
		f := Final{Outcome: outcomes[rng.IntN(len(outcomes))], Executed: rng.IntN(2) == 0, ColumnJaccard: rng.Float64(),
			TableJaccard: rng.Float64(), Efficiency: 1.25, GoldEmpty: rng.IntN(2) == 0, NonEmpty: true,
			NoTableRead: rng.IntN(2) == 0, CompletionTokens: math.MaxInt}
		l.Step(Turn(rng.IntN(5)), &f)
		if total := l.Total(); math.IsInf(total, 0) || math.IsNaN(total) || math.Abs(total) > bound*(1+1e-9) {
			t.Fatalf("spec %d %+v: total %v, bound %v", i, spec, total, bound)
		}
	}
}

// extremeSpec is a valid spec whose weights sit at or near ±MaxWeight.
func extremeSpec(rng *rand.Rand) schemas.RewardSpec {
	w := func() float64 {
		return []float64{MaxWeight, -MaxWeight, 0, rng.NormFloat64() * MaxWeight / 4}[rng.IntN(4)]
	}
	s := schemas.DefaultRewardSpec()
	f := &s.Final
	f.Correct, f.Mismatch, f.PredError, f.PredTimeout, f.NoSubmit = w(), w(), w(), w(), w()
	f.Executes, f.ColumnJaccard, f.Efficiency, f.TableJaccard, f.NonEmpty = w(), w(), w(), w(), w()
	f.Length, f.LengthTokens, f.EmptyGoldScale = w(), 1, rng.Float64()*4
	f.ExecutesOnCorrect, f.RequiresTableRead = rng.IntN(2) == 0, rng.IntN(2) == 0
	s.Turn = schemas.TurnReward{ToolError: w(), FormatError: w(), Repeat: w(), OK: w(), FormatOK: w(), Cap: math.Abs(w())}
	clampWeights(&s)
	return s
}

// clampWeights keeps the normal draws of extremeSpec within MaxWeight.
func clampWeights(s *schemas.RewardSpec) {
	c := func(v *float64) { *v = max(-MaxWeight, min(MaxWeight, *v)) }
	f, t := &s.Final, &s.Turn
	for _, v := range []*float64{&f.Correct, &f.Mismatch, &f.PredError, &f.PredTimeout, &f.NoSubmit, &f.Executes,
		&f.ColumnJaccard, &f.Efficiency, &f.TableJaccard, &f.NonEmpty, &f.Length,
		&t.ToolError, &t.FormatError, &t.Repeat, &t.OK, &t.FormatOK, &t.Cap} {
		c(v)
	}
}
