package reward

import (
	"fmt"
	"math"

	"github.com/sqlgym/sqlgym/schemas"
)

// Validate checks a spec: a known match mode, finite numbers,
// float_tolerance, final.empty_gold_scale and turn.cap not negative, every
// weight (turn.cap and final.empty_gold_scale too) within ±MaxWeight, and
// the most one episode can be paid (EpisodeBound) within
// ±MaxEpisodeReward. Errors name the key at fault, as Resolve's do.
func Validate(spec schemas.RewardSpec) error {
	switch spec.Match {
	case schemas.MatchBird, schemas.MatchSpider, schemas.MatchTolerant:
	default:
		return fmt.Errorf("reward.match: unknown match mode %q (want %s, %s or %s)",
			spec.Match, schemas.MatchBird, schemas.MatchSpider, schemas.MatchTolerant)
	}
	for _, f := range specNumbers(spec) {
		if math.IsNaN(f.value) || math.IsInf(f.value, 0) {
			return fmt.Errorf("reward.%s: must be a finite number, got %v", f.key, f.value)
		}
		if f.nonNegative && f.value < 0 {
			return fmt.Errorf("reward.%s: must be >= 0, got %v", f.key, f.value)
		}
	}
	if spec.Final.Length != 0 && spec.Final.LengthTokens <= 0 {
		return fmt.Errorf("reward.final.length_tokens: must be > 0 when final.length is not 0, got %v", spec.Final.LengthTokens)
	}
	return checkBounds(spec)
}

// specNumber is one numeric field of a spec, by its JSON path.
type specNumber struct {
	key         string
	value       float64
	nonNegative bool
	weight      bool // it scales a reward: within ±MaxWeight
}

func specNumbers(s schemas.RewardSpec) []specNumber {
	f, t := s.Final, s.Turn
	return []specNumber{
		{"float_tolerance", s.FloatTolerance, true, false},
		{"final.correct", f.Correct, false, true},
		{"final.mismatch", f.Mismatch, false, true},
		{"final.pred_error", f.PredError, false, true},
		{"final.pred_timeout", f.PredTimeout, false, true},
		{"final.no_submit", f.NoSubmit, false, true},
		{"final.executes", f.Executes, false, true},
		{"final.column_jaccard", f.ColumnJaccard, false, true},
		{"final.efficiency", f.Efficiency, false, true},
		{"final.empty_gold_scale", f.EmptyGoldScale, true, true},
		{"final.table_jaccard", f.TableJaccard, false, true},
		{"final.nonempty", f.NonEmpty, false, true},
		{"final.length", f.Length, false, true},
		{"final.length_tokens", f.LengthTokens, true, false},
		{"turn.tool_error", t.ToolError, false, true},
		{"turn.format_error", t.FormatError, false, true},
		{"turn.repeat", t.Repeat, false, true},
		{"turn.ok", t.OK, false, true},
		{"turn.cap", t.Cap, true, true},
		{"turn.format_ok", t.FormatOK, false, true},
	}
}
