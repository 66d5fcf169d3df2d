package reward

import (
	"fmt"
	"math"

	"github.com/sqlgym/sqlgym/schemas"
)

// Validate checks a spec: a known match mode, finite numbers, and
// float_tolerance, final.empty_gold_scale and turn.cap not negative.
// Errors name the key at fault, as Resolve's do.
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
	return nil
}

// specNumber is one numeric field of a spec, by its JSON path.
type specNumber struct {
	key         string
	value       float64
	nonNegative bool
}

func specNumbers(s schemas.RewardSpec) []specNumber {
	f, t := s.Final, s.Turn
	return []specNumber{
		{"float_tolerance", s.FloatTolerance, true},
		{"final.correct", f.Correct, false},
		{"final.mismatch", f.Mismatch, false},
		{"final.pred_error", f.PredError, false},
		{"final.pred_timeout", f.PredTimeout, false},
		{"final.no_submit", f.NoSubmit, false},
		{"final.executes", f.Executes, false},
		{"final.column_jaccard", f.ColumnJaccard, false},
		{"final.efficiency", f.Efficiency, false},
		{"final.empty_gold_scale", f.EmptyGoldScale, true},
		{"final.table_jaccard", f.TableJaccard, false},
		{"final.nonempty", f.NonEmpty, false},
		{"final.length", f.Length, false},
		{"final.length_tokens", f.LengthTokens, true},
		{"turn.tool_error", t.ToolError, false},
		{"turn.format_error", t.FormatError, false},
		{"turn.repeat", t.Repeat, false},
		{"turn.ok", t.OK, false},
		{"turn.cap", t.Cap, true},
		{"turn.format_ok", t.FormatOK, false},
	}
}
