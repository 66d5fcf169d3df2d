package reward

import (
	"math"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// Turn is what a step did, for the turn component it pays.
type Turn int

// Turns. TurnNone pays no turn component: it is for paying a final
// outcome outside a step (an episode closed or abandoned between steps).
const (
	TurnOK          Turn = iota // the tool ran (a failing statement is not OK: see TurnToolError)
	TurnToolError               // the tool failed: bad SQL, timeout, denied statement, unknown table
	TurnFormatError             // no parseable action, unknown tool or bad arguments
	TurnRepeat                  // the same call as an earlier step
	TurnNone                    // no turn taken
)

// Reward component names, as steps report them in reward_components.
const (
	ComponentTurnOK             = "turn.ok"
	ComponentTurnToolError      = "turn.tool_error"
	ComponentTurnFormatError    = "turn.format_error"
	ComponentTurnRepeat         = "turn.repeat"
	ComponentFinalCorrect       = "final.correct"
	ComponentFinalMismatch      = "final.mismatch"
	ComponentFinalPredError     = "final.pred_error"
	ComponentFinalPredTimeout   = "final.pred_timeout"
	ComponentFinalNoSubmit      = "final.no_submit"
	ComponentFinalExecutes      = "final.executes"
	ComponentFinalColumnJaccard = "final.column_jaccard"
	ComponentFinalEfficiency    = "final.efficiency"
	ComponentTurnFormatOK       = "turn.format_ok"
	ComponentFinalTableJaccard  = "final.table_jaccard"
	ComponentFinalNonEmpty      = "final.nonempty"
	ComponentFinalLength        = "final.length"
)

// Final describes how the episode ended, on the step that ended it.
type Final struct {
	Outcome       string  // schemas.Outcome*
	Executed      bool    // the submitted SQL ran (mismatch)
	ColumnJaccard float64 // overlap of read columns with the gold's, 0..1
	Efficiency    float64 // the R-VES bucket (1.25/1/0.75/0.5/0.25), 0 when not measured
	GoldEmpty     bool    // the gold result had no rows
	TableJaccard  float64 // overlap of read tables with the gold's, 0..1
	NonEmpty      bool    // the submitted SQL ran and returned rows
	// NoTableRead is set when the submission read no table of the
	// database while the gold did: under final.requires_table_read a
	// correct result is then paid as a mismatch.
	NoTableRead bool
	// CompletionTokens are the episode's completion tokens, as the client
	// reported them with its steps (0 when it reported none).
	CompletionTokens int
}

// Ledger pays one episode's steps under a spec. It is not safe for
// concurrent use: an episode's steps are serial.
type Ledger struct {
	spec  schemas.RewardSpec
	turn  float64 // turn components paid so far; |turn| <= spec.Turn.Cap
	final float64 // final components paid so far
	total float64 // everything paid so far
}

// NewLedger returns a ledger that pays under spec.
func NewLedger(spec schemas.RewardSpec) *Ledger { return &Ledger{spec: spec} }

// Step pays one step: the turn component of t, clipped so the running sum
// of turn components stays within [-cap, cap], and, when final is not nil,
// the final components of the outcome. It returns the components and their
// sum. A component that applies is reported even when its weight is 0;
// the optional terms (final.executes, final.column_jaccard,
// final.table_jaccard, final.nonempty, final.efficiency, final.length,
// turn.format_ok) only when their weight is not 0.
func (l *Ledger) Step(t Turn, final *Final) (components map[string]float64, reward float64) {
	components = map[string]float64{}
	if name, w, ok := l.turnWeight(t); ok {
		components[name] = l.clip(w)
		if t != TurnFormatError && l.spec.Turn.FormatOK != 0 {
			components[ComponentTurnFormatOK] = l.clip(l.spec.Turn.FormatOK)
		}
	}
	if final != nil {
		l.payFinal(components, *final)
	}
	names := make([]string, 0, len(components))
	for name := range components {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		reward += components[name]
	}
	l.total += reward
	return components, reward
}

// Repay pays again what one recorded call (or a turn of one call) was
// paid, its components as Step returned them, so that a ledger rebuilt
// from a trajectory's steps (an episode taken over by another replica)
// stands where the first one stood: the turn sum its cap clips against,
// the final part and the total, each summed in Step's order.
func (l *Ledger) Repay(components map[string]float64) {
	for _, name := range [...]string{ComponentTurnOK, ComponentTurnToolError, ComponentTurnFormatError, ComponentTurnRepeat, ComponentTurnFormatOK} {
		l.turn += components[name]
	}
	names := make([]string, 0, len(components))
	for name := range components {
		names = append(names, name)
	}
	slices.Sort(names)
	reward := 0.0
	for _, name := range names {
		reward += components[name]
		if strings.HasPrefix(name, "final.") {
			l.final += components[name]
		}
	}
	l.total += reward
}

// Total is everything paid so far.
func (l *Ledger) Total() float64 { return l.total }

// Final is the final.* part paid so far.
func (l *Ledger) Final() float64 { return l.final }

func (l *Ledger) turnWeight(t Turn) (string, float64, bool) {
	w := l.spec.Turn
	switch t {
	case TurnOK:
		return ComponentTurnOK, w.OK, true
	case TurnToolError:
		return ComponentTurnToolError, w.ToolError, true
	case TurnFormatError:
		return ComponentTurnFormatError, w.FormatError, true
	case TurnRepeat:
		return ComponentTurnRepeat, w.Repeat, true
	}
	return "", 0, false
}

// clip pays w, or the part of it that keeps the running sum of turn
// components within the cap.
func (l *Ledger) clip(w float64) float64 {
	c := l.spec.Turn.Cap
	next := l.turn + w
	paid := w
	if next > c {
		paid = c - l.turn
	} else if next < -c {
		paid = -c - l.turn
	}
	if (w > 0 && paid < 0) || (w < 0 && paid > 0) {
		paid = 0 // never pay against the weight's sign
	}
	l.turn += paid
	return paid + 0 // no negative zero on the wire
}

// payFinal adds the final components of f's outcome, and the length
// term. gold_error and gold_timeout pay nothing: a broken task is never
// blamed on the model.
func (l *Ledger) payFinal(c map[string]float64, f Final) {
	w := l.spec.Final
	switch f.Outcome {
	case schemas.OutcomeCorrect:
		if w.RequiresTableRead && f.NoTableRead {
			l.payRan(c, f, ComponentFinalMismatch, w.Mismatch, true)
			break
		}
		scale := 1.0
		if f.GoldEmpty {
			scale = w.EmptyGoldScale
		}
		l.payRan(c, f, ComponentFinalCorrect, w.Correct*scale, w.ExecutesOnCorrect)
		if f.Efficiency > 0 {
			l.optional(c, ComponentFinalEfficiency, w.Efficiency, f.Efficiency)
		}
	case schemas.OutcomeMismatch:
		l.payRan(c, f, ComponentFinalMismatch, w.Mismatch, f.Executed)
	case schemas.OutcomePredError:
		l.add(c, ComponentFinalPredError, w.PredError)
	case schemas.OutcomePredTimeout:
		l.add(c, ComponentFinalPredTimeout, w.PredTimeout)
	case schemas.OutcomeNoSubmit, schemas.OutcomeAbandoned:
		l.add(c, ComponentFinalNoSubmit, w.NoSubmit)
	default:
		return // gold_error, gold_timeout: not even the length is paid
	}
	if w.Length != 0 {
		l.add(c, ComponentFinalLength, w.Length*max(0, min(1, float64(f.CompletionTokens)/w.LengthTokens)))
	}
}

// payRan pays a submission that ran: its outcome's component, the
// executes term when executed, and the structural terms.
func (l *Ledger) payRan(c map[string]float64, f Final, name string, v float64, executed bool) {
	w := l.spec.Final
	l.add(c, name, v)
	if executed {
		l.optional(c, ComponentFinalExecutes, w.Executes, 1)
	}
	l.optional(c, ComponentFinalColumnJaccard, w.ColumnJaccard, f.ColumnJaccard)
	l.optional(c, ComponentFinalTableJaccard, w.TableJaccard, f.TableJaccard)
	nonEmpty := 0.0
	if f.NonEmpty {
		nonEmpty = 1
	}
	l.optional(c, ComponentFinalNonEmpty, w.NonEmpty, nonEmpty)
}

// add reports a final component and counts it.
func (l *Ledger) add(c map[string]float64, name string, v float64) {
	c[name] = v + 0 // no negative zero on the wire
	l.final += v
}

// optional adds weight*v when the weight is not 0.
func (l *Ledger) optional(c map[string]float64, name string, weight, v float64) {
	if weight != 0 {
		l.add(c, name, weight*v)
	}
}

// AddTokens adds a step's reported completion tokens (none when u is nil)
// to an episode's total. Counts are bounded by the protocol
// (schemas.MaxCompletionTokens), but a record read back may hold any
// number: the sum saturates instead of wrapping, and a negative count
// adds nothing, so the length term always stays within its weight.
func AddTokens(total int, u *schemas.Usage) int {
	if u == nil || u.CompletionTokens <= 0 {
		return total
	}
	if u.CompletionTokens > math.MaxInt-total {
		return math.MaxInt
	}
	return total + u.CompletionTokens
}
