package schemas

// Outcomes of an episode.
const (
	OutcomeCorrect     = "correct"      // the submission's result matches the gold's
	OutcomeMismatch    = "mismatch"     // it ran, with a different result
	OutcomePredError   = "pred_error"   // the submitted SQL failed
	OutcomePredTimeout = "pred_timeout" // the submitted SQL ran past its timeout
	OutcomeGoldError   = "gold_error"   // the gold failed: the task is broken
	OutcomeGoldTimeout = "gold_timeout" // the gold ran past its timeout: the task is broken
	OutcomeNoSubmit    = "no_submit"    // turns ran out, or closed before a submit
	OutcomeAbandoned   = "abandoned"    // idle past the idle timeout
)

// Outcomes lists every outcome, in the order reports show them.
func Outcomes() []string {
	return []string{
		OutcomeCorrect, OutcomeMismatch, OutcomePredError, OutcomePredTimeout,
		OutcomeGoldError, OutcomeGoldTimeout, OutcomeNoSubmit, OutcomeAbandoned,
	}
}

// Judging modes of JudgeInfo.Mode.
const (
	JudgeExec  = "exec"  // on the task's database alone
	JudgeSuite = "suite" // on the task's database and every database of its test suite
)

// JudgeInfo says how a submission was judged: on the task's database
// alone, or on its test suite too, and what the suite found. The model
// never sees it; a step's info and its record carry it for the trainer.
type JudgeInfo struct {
	Mode string `json:"mode" jsonschema:"enum=exec,enum=suite" jsonschema_description:"exec: on the task's database alone; suite: on the task's database and every database of its test suite."`
	Ties string `json:"ties" jsonschema:"enum=official,enum=any" jsonschema_description:"official: both queries' rows compared as the engine returned them; any: a gold with ties accepts every result it could rightly return."`
	// ExecOutcome is the outcome on the task's database alone; the
	// episode's outcome differs only when the suite told the answer apart.
	ExecOutcome    string `json:"exec_outcome" jsonschema_description:"The outcome on the task's database alone."`
	SuiteDatabases int    `json:"suite_databases,omitempty" jsonschema_description:"Databases in the task's test suite."`
	SuiteJudged    int    `json:"suite_judged,omitempty" jsonschema_description:"Suite databases the answer was judged on, up to the one that told it apart."`
	ToldApartBy    string `json:"told_apart_by,omitempty" jsonschema_description:"The suite database on which the answer did not agree with the gold."`
	Reason         string `json:"reason,omitempty" jsonschema_description:"How it differed there: other rows, or what the answer did wrong there."`
	GoldFailed     int    `json:"gold_failed,omitempty" jsonschema_description:"Suite databases passed over because the gold itself failed on them."`
	GoldTies       bool   `json:"gold_ties,omitempty" jsonschema_description:"The gold has more than one right answer on the task's database (ties under ORDER BY, or a LIMIT without one)."`
}
