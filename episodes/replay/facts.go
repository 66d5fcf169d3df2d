package replay

import (
	"fmt"
	"math"

	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

// turnKinds maps each turn component to the kind of turn that pays it.
// The ledger reports a step's turn component even when its weight is 0,
// so every recorded step names its kind.
var turnKinds = map[string]reward.Turn{
	reward.ComponentTurnOK:          reward.TurnOK,
	reward.ComponentTurnToolError:   reward.TurnToolError,
	reward.ComponentTurnFormatError: reward.TurnFormatError,
	reward.ComponentTurnRepeat:      reward.TurnRepeat,
}

// turnKind reads what kind of turn a recorded step was.
func turnKind(st *schemas.StepRecord) (reward.Turn, error) {
	for name, kind := range turnKinds {
		if _, ok := st.RewardComponents[name]; ok {
			return kind, nil
		}
	}
	return 0, fmt.Errorf("step %d has no turn component: its kind cannot be told", st.Turn)
}

// facts are the final facts of a recorded step, as far as its components
// under the old spec tell them.
type facts struct {
	reward.Final
	// Set when the record cannot tell the value: the old spec did not pay
	// for it, so it was never measured or never shown.
	jaccardUnknown, efficiencyUnknown, goldEmptyUnknown bool
	tablesUnknown, nonEmptyUnknown, noTableReadUnknown  bool
}

// recordedFacts reads the final facts of a step that ended its episode
// with the given outcome, paid under old.
func recordedFacts(old schemas.RewardSpec, st *schemas.StepRecord, outcome string) facts {
	w := old.Final
	c := st.RewardComponents
	f := facts{Final: reward.Final{Outcome: outcome, Executed: outcome == schemas.OutcomeMismatch}}
	if w.ColumnJaccard != 0 {
		f.ColumnJaccard = within(c[reward.ComponentFinalColumnJaccard]/w.ColumnJaccard, 0, 1)
	} else {
		f.jaccardUnknown = true
	}
	if w.Efficiency != 0 {
		f.Efficiency = within(c[reward.ComponentFinalEfficiency]/w.Efficiency, 0, efficiencyTop)
	} else {
		f.efficiencyUnknown = true
	}
	if w.Correct != 0 && w.EmptyGoldScale != 1 {
		f.GoldEmpty = c[reward.ComponentFinalCorrect] != w.Correct
	} else {
		f.goldEmptyUnknown = true
	}
	recordedLaterFacts(old, c, &f)
	return f
}

// efficiencyTop is the largest R-VES bucket (reward.RatioBucket).
var efficiencyTop = reward.RatioBucket(math.Inf(1))

// within is x kept to [lo, hi], lo for NaN: a fact read back from a
// record made under any spec (weights of 1e-300, components of 1e308)
// stays in its domain, so the new spec pays it finitely.
func within(x, lo, hi float64) float64 {
	if math.IsNaN(x) {
		return lo
	}
	return max(lo, min(hi, x))
}

// recordedLaterFacts reads the facts of the terms added after the first
// specs: table overlap, rows returned, and the table-read guard (which
// pays a guarded correct answer as a mismatch).
func recordedLaterFacts(old schemas.RewardSpec, c map[string]float64, f *facts) {
	w := old.Final
	if w.TableJaccard != 0 {
		f.TableJaccard = within(c[reward.ComponentFinalTableJaccard]/w.TableJaccard, 0, 1)
	} else {
		f.tablesUnknown = true
	}
	if w.NonEmpty != 0 {
		f.NonEmpty = c[reward.ComponentFinalNonEmpty] != 0
	} else {
		f.nonEmptyUnknown = true
	}
	if w.RequiresTableRead {
		_, f.NoTableRead = c[reward.ComponentFinalMismatch]
	} else {
		f.noTableReadUnknown = true
	}
}

// needsJudge reports whether a submission must be judged again to be paid
// under next: the matching rules changed, or next pays for a fact the
// record cannot tell.
func needsJudge(old, next schemas.RewardSpec, f facts) bool {
	if matchingChanged(old, next) {
		return true
	}
	n := next.Final
	ran := (n.ColumnJaccard != 0 && f.jaccardUnknown) || (n.TableJaccard != 0 && f.tablesUnknown) ||
		(n.NonEmpty != 0 && f.nonEmptyUnknown)
	switch f.Outcome {
	case schemas.OutcomeCorrect:
		return ran || (n.Efficiency != 0 && f.efficiencyUnknown) ||
			(n.Correct != 0 && n.EmptyGoldScale != 1 && f.goldEmptyUnknown) ||
			(n.RequiresTableRead && f.noTableReadUnknown)
	case schemas.OutcomeMismatch:
		return ran
	}
	return false
}

// matchingChanged reports whether two specs may judge a submission
// differently.
func matchingChanged(a, b schemas.RewardSpec) bool {
	return a.Match != b.Match || a.KeepDistinct != b.KeepDistinct ||
		(b.Match == schemas.MatchTolerant && a.FloatTolerance != b.FloatTolerance)
}

// submitOutcome reports whether an outcome comes from judging a
// submission (rather than from running out of turns or being closed).
func submitOutcome(outcome string) bool {
	switch outcome {
	case "", schemas.OutcomeNoSubmit, schemas.OutcomeAbandoned:
		return false
	}
	return true
}
