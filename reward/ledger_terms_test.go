package reward

import (
	"maps"
	"math"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// retoolSpec is ReToolSQL's reward as examples/rewards/retoolsql.json
// states it.
func retoolSpec() schemas.RewardSpec {
	return schemas.RewardSpec{
		Match: schemas.MatchBird,
		Final: schemas.FinalReward{
			Correct: 2, Executes: 0.5, ExecutesOnCorrect: true, ColumnJaccard: 0.5, TableJaccard: 0.5,
			NonEmpty: 0.1, Length: -0.1, LengthTokens: 4096, EmptyGoldScale: 1, RequiresTableRead: true,
		},
		Turn: TurnReward{FormatOK: 0.2, Cap: 0.2},
	}
}

// TurnReward is schemas.TurnReward, spelled short for the tables below.
type TurnReward = schemas.TurnReward

func TestLedgerPaperTerms(t *testing.T) {
	perfect := Final{Outcome: schemas.OutcomeCorrect, ColumnJaccard: 1, TableJaccard: 1, NonEmpty: true}
	tests := []struct {
		name  string
		turns []Turn
		final Final
		want  map[string]float64 // the final step's components
		total float64
	}{
		{"a perfect answer earns 3.8", []Turn{TurnOK}, perfect, map[string]float64{
			"turn.ok": 0, "turn.format_ok": 0.2, "final.correct": 2, "final.executes": 0.5,
			"final.column_jaccard": 0.5, "final.table_jaccard": 0.5, "final.nonempty": 0.1, "final.length": 0,
		}, 3.8},
		{"format is paid once under the cap", []Turn{TurnOK, TurnToolError, TurnOK}, perfect, map[string]float64{
			"turn.ok": 0, "turn.format_ok": 0, "final.correct": 2, "final.executes": 0.5,
			"final.column_jaccard": 0.5, "final.table_jaccard": 0.5, "final.nonempty": 0.1, "final.length": 0,
		}, 3.8},
		{"the length term on reported tokens", []Turn{TurnOK}, Final{Outcome: schemas.OutcomeCorrect,
			ColumnJaccard: 1, TableJaccard: 1, NonEmpty: true, CompletionTokens: 2048}, map[string]float64{
			"turn.ok": 0, "turn.format_ok": 0.2, "final.correct": 2, "final.executes": 0.5,
			"final.column_jaccard": 0.5, "final.table_jaccard": 0.5, "final.nonempty": 0.1, "final.length": -0.05,
		}, 3.75},
		{"the length term is capped", []Turn{TurnFormatError}, Final{Outcome: schemas.OutcomeNoSubmit, CompletionTokens: 1 << 20},
			map[string]float64{"turn.format_error": 0, "final.no_submit": 0, "final.length": -0.1}, -0.1},
		{"a constant answer is paid as a mismatch", []Turn{TurnOK}, Final{Outcome: schemas.OutcomeCorrect,
			ColumnJaccard: 0, TableJaccard: 0, NonEmpty: true, NoTableRead: true}, map[string]float64{
			"turn.ok": 0, "turn.format_ok": 0.2, "final.mismatch": 0, "final.executes": 0.5,
			"final.column_jaccard": 0, "final.table_jaccard": 0, "final.nonempty": 0.1, "final.length": 0,
		}, 0.8},
		{"an empty wrong result", []Turn{TurnOK}, Final{Outcome: schemas.OutcomeMismatch, Executed: true,
			ColumnJaccard: 0.5, TableJaccard: 1}, map[string]float64{
			"turn.ok": 0, "turn.format_ok": 0.2, "final.mismatch": 0, "final.executes": 0.5,
			"final.column_jaccard": 0.25, "final.table_jaccard": 0.5, "final.nonempty": 0, "final.length": 0,
		}, 1.45},
		{"a broken gold pays no final term", []Turn{TurnOK}, Final{Outcome: schemas.OutcomeGoldError, CompletionTokens: 9000},
			map[string]float64{"turn.ok": 0, "turn.format_ok": 0.2}, 0.2},
	}
	for _, tc := range tests {
		l := NewLedger(retoolSpec())
		var comps map[string]float64
		var reward float64
		for i, kind := range tc.turns {
			var fin *Final
			if i == len(tc.turns)-1 {
				fin = &tc.final
			}
			comps, reward = l.Step(kind, fin)
			checkSum(t, comps, reward)
		}
		if !sameComponents(comps, tc.want) {
			t.Errorf("%s: components %v, want %v", tc.name, comps, tc.want)
		}
		if math.Abs(l.Total()-tc.total) > 1e-9 {
			t.Errorf("%s: total %v, want %v", tc.name, l.Total(), tc.total)
		}
	}
}

func sameComponents(got, want map[string]float64) bool {
	return maps.EqualFunc(got, want, func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
}

// TestLedgerGuardOff: with requires_table_read off (binary), a constant
// answer that matches is correct, as the official EX counts it.
func TestLedgerGuardOff(t *testing.T) {
	spec := retoolSpec()
	spec.Final.RequiresTableRead = false
	comps, _ := NewLedger(spec).Step(TurnOK, &Final{Outcome: schemas.OutcomeCorrect, NoTableRead: true})
	if comps[ComponentFinalCorrect] != 2 {
		t.Errorf("components %v, want final.correct 2", comps)
	}
	// Without the new weights, the components are the ones paid before
	// they existed.
	comps, _ = NewLedger(schemas.DefaultRewardSpec()).Step(TurnOK, &Final{Outcome: schemas.OutcomeMismatch, Executed: true})
	want := map[string]float64{"turn.ok": 0, "final.mismatch": 0, "final.executes": 0.1}
	if !sameComponents(comps, want) {
		t.Errorf("default spec: components %v, want %v", comps, want)
	}
}

func TestAddTokensSaturates(t *testing.T) {
	tests := []struct {
		total int
		u     *schemas.Usage
		want  int
	}{
		{10, nil, 10},
		{10, &schemas.Usage{CompletionTokens: 5}, 15},
		{10, &schemas.Usage{CompletionTokens: -5}, 10},
		{math.MaxInt - 1, &schemas.Usage{CompletionTokens: 5}, math.MaxInt},
		{math.MaxInt, &schemas.Usage{CompletionTokens: math.MaxInt}, math.MaxInt},
	}
	for _, tt := range tests {
		if got := AddTokens(tt.total, tt.u); got != tt.want {
			t.Errorf("AddTokens(%d, %+v) = %d, want %d", tt.total, tt.u, got, tt.want)
		}
	}
}
