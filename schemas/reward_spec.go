package schemas

// Match modes of RewardSpec.Match.
const (
	MatchBird     = "bird"     // set of rows, column order strict (BIRD EX)
	MatchSpider   = "spider"   // bag of rows, column order free, order only under ORDER BY (Spider test-suite EX)
	MatchTolerant = "tolerant" // as spider, numbers equal within FloatTolerance
)

// RewardSpec says how an episode is paid. Final components are added to
// the last step's reward by outcome; turn components are paid on every
// step, their absolute sum over an episode bounded by Turn.Cap.
type RewardSpec struct {
	Match          string  `json:"match" jsonschema:"enum=bird,enum=spider,enum=tolerant"`
	FloatTolerance float64 `json:"float_tolerance" jsonschema:"minimum=0"`
	// KeepDistinct keeps DISTINCT keywords in spider and tolerant modes;
	// the official Spider evaluator removes them by default.
	KeepDistinct bool        `json:"keep_distinct"`
	Final        FinalReward `json:"final"`
	Turn         TurnReward  `json:"turn"`
}

// FinalReward are the components added to the last step by outcome.
type FinalReward struct {
	Correct     float64 `json:"correct"`
	Mismatch    float64 `json:"mismatch"`
	PredError   float64 `json:"pred_error"`
	PredTimeout float64 `json:"pred_timeout"`
	NoSubmit    float64 `json:"no_submit"`
	// Executes is added when the submitted SQL ran but its result was wrong.
	Executes float64 `json:"executes"`
	// ColumnJaccard weights the overlap of the columns the submission read
	// with the columns the gold read.
	ColumnJaccard float64 `json:"column_jaccard"`
	// Efficiency weights the R-VES speed bucket of gold time over predicted
	// time; paid on correct answers only.
	Efficiency float64 `json:"efficiency"`
	// EmptyGoldScale multiplies Correct when the gold result is empty, where
	// any query that returns nothing matches; 1 pays such matches in full.
	EmptyGoldScale float64 `json:"empty_gold_scale" jsonschema:"minimum=0"`

	// The fields below are left out of the JSON when zero, so that a spec
	// that does not use them hashes as it did before they existed, and
	// trajectories recorded before them still validate.

	// ExecutesOnCorrect pays Executes on correct answers too: whenever the
	// submission ran (ReToolSQL), not only when it was wrong.
	ExecutesOnCorrect bool `json:"executes_on_correct,omitempty"`
	// TableJaccard weights the overlap of the tables the submission read
	// with the tables the gold read.
	TableJaccard float64 `json:"table_jaccard,omitempty"`
	// NonEmpty is paid when the submission ran and returned rows.
	NonEmpty float64 `json:"nonempty,omitempty"`
	// Length weights the episode's completion tokens, as clients reported
	// them with each step, over LengthTokens (capped at 1); 0 when no step
	// reported any. A negative weight penalises long episodes.
	Length float64 `json:"length,omitempty"`
	// LengthTokens is the token count at which the length term is paid in
	// full; it must be positive when Length is not 0.
	LengthTokens float64 `json:"length_tokens,omitempty" jsonschema:"minimum=0"`
	// RequiresTableRead withholds Correct from a submission that reads no
	// table of the database while the gold does (SELECT 4 when the answer
	// is 4): it is paid as a mismatch.
	RequiresTableRead bool `json:"requires_table_read,omitempty"`
}

// TurnReward are the components paid on each step by what happened.
type TurnReward struct {
	ToolError   float64 `json:"tool_error"`
	FormatError float64 `json:"format_error"`
	Repeat      float64 `json:"repeat"`
	OK          float64 `json:"ok"`
	Cap         float64 `json:"cap" jsonschema:"minimum=0"`
	// FormatOK is paid on every well-formed call (a known tool with valid
	// arguments), beside the step's other turn component and under the
	// same cap. Left out of the JSON when zero, as the new final fields.
	FormatOK float64 `json:"format_ok,omitempty"`
}

// DefaultRewardSpec is the server's spec when none is configured.
func DefaultRewardSpec() RewardSpec {
	return RewardSpec{
		Match: MatchBird,
		Final: FinalReward{
			Correct: 1.0, Mismatch: 0.0, PredError: -0.1, PredTimeout: -0.1,
			NoSubmit: -0.2, Executes: 0.1, EmptyGoldScale: 1.0, RequiresTableRead: true,
		},
		Turn: TurnReward{ToolError: -0.02, FormatError: -0.05, Repeat: -0.02, OK: 0.0, Cap: 0.2},
	}
}
