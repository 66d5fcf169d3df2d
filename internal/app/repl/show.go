package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// showStep prints a step: the engine's error in red, or the rows of a
// result as a table (or, with observation set or no rows, the text the
// model sees), then the reward and, when the episode ended, the outcome.
func (s *session) showStep(ctx context.Context, r *stepReply, observation bool) {
	info := r.Info
	switch {
	case info.Error != nil:
		s.out.errorf("error [%s]: %s", info.Error.Code, info.Error.Message)
		if observation {
			s.showObservation(r.Observation.Content)
		}
	case observation || info.Result == nil && info.Tool != schemas.ToolSubmit:
		s.showObservation(r.Observation.Content)
	case info.Result != nil:
		s.showResult(info.Result)
	}
	s.out.styledf(styleCyan, "reward %s%s · turn %d/%d", num(r.Reward), components(info.RewardComponents),
		info.Turn, info.Turn+info.TurnsLeft)
	if r.Terminated || r.Truncated {
		s.showOutcome(ctx, outcomeShown(info.StepInfo))
	}
}

// outcomeNoTableRead is how the REPL names a correct result that the
// spec's final.requires_table_read paid as a mismatch.
const outcomeNoTableRead = "correct, no table read"

// outcomeShown is the outcome to say in words: a correct result paid as
// a mismatch (it read no table while the gold did) is told apart.
func outcomeShown(info schemas.StepInfo) string {
	if _, mismatch := info.RewardComponents["final.mismatch"]; mismatch && info.Outcome == schemas.OutcomeCorrect {
		return outcomeNoTableRead
	}
	return info.Outcome
}

// showObservation prints the text the model sees, indented.
func (s *session) showObservation(content string) {
	s.out.styledf(styleDim, "the model sees:")
	s.out.block("  ", content)
}

// outcomes says each outcome in words, with its colour.
var outcomes = map[string]struct{ style, words string }{
	schemas.OutcomeCorrect:     {styleGreen, "CORRECT: the result matches the gold's."},
	outcomeNoTableRead:         {styleYellow, "NOT PAID AS CORRECT: the result matches the gold's, but the query reads no table of the database (final.requires_table_read)."},
	schemas.OutcomeMismatch:    {styleYellow, "MISMATCH: the query ran, but its result differs from the gold's."},
	schemas.OutcomePredError:   {styleRed, "FAILED: the submitted query did not run."},
	schemas.OutcomePredTimeout: {styleRed, "TIMEOUT: the submitted query ran past its time limit."},
	schemas.OutcomeGoldError:   {styleYellow, "GOLD ERROR: the task's gold query failed; the task is broken, not the answer."},
	schemas.OutcomeGoldTimeout: {styleYellow, "GOLD TIMEOUT: the task's gold query ran past its time limit; the task is broken, not the answer."},
	schemas.OutcomeNoSubmit:    {styleYellow, "NO SUBMISSION: the turns ran out before a submit."},
	schemas.OutcomeAbandoned:   {styleYellow, "ABANDONED: the episode sat idle past the server's idle timeout."},
}

// showOutcome says how the episode ended (for a mismatch, how the
// result differs from the gold's, where the REPL can see it) and what it
// earned.
func (s *session) showOutcome(ctx context.Context, outcome string) {
	o, ok := outcomes[outcome]
	if !ok {
		o.style, o.words = styleYellow, "ENDED: "+outcome+"."
	}
	s.out.styledf(styleBold+";"+o.style, "%s", o.words)
	if outcome == schemas.OutcomeMismatch {
		s.showDifference(ctx)
	}
	s.out.linef("Episode over after %s: total reward %s. .trajectory shows the steps, .reset starts another.",
		plural(s.ep.turns, "turn"), num(s.ep.total))
}

// components renders reward components as " (name value, ...)", sorted
// by name; "" when there are none.
func components(c map[string]float64) string {
	if len(c) == 0 {
		return ""
	}
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + num(c[n])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// num renders a reward: shortest form, rounded to 6 decimals so float
// sums print as people expect, and never "-0".
func num(v float64) string {
	v = math.Round(v*1e6) / 1e6
	if v == 0 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// callText renders a call briefly: the SQL of execute_sql and submit as it
// is, other arguments as compact JSON.
func callText(tool string, args json.RawMessage) string {
	var a struct {
		SQL *string `json:"sql"`
	}
	if (tool == schemas.ToolExecuteSQL || tool == schemas.ToolSubmit) && json.Unmarshal(args, &a) == nil && a.SQL != nil {
		return tool + ": " + *a.SQL
	}
	if len(args) == 0 {
		return tool + " {}"
	}
	return tool + " " + compactJSON(args)
}

// compactJSON is raw without insignificant white space.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// ANSI styles of the printer.
const (
	styleBold    = "1"
	styleDim     = "2"
	styleRed     = "31"
	styleGreen   = "32"
	styleYellow  = "33"
	styleMagenta = "35"
	styleCyan    = "36"
)

// printer writes the REPL's output, in colour or plain.
type printer struct {
	w     io.Writer
	color bool
	width int // the terminal's width; 0 for no limit
}

// newPrinter prints to w, in colour when color is set, fitting tables to
// the width of the terminal behind w.
func newPrinter(w io.Writer, color bool) *printer {
	p := &printer{w: w, color: color}
	p.refreshWidth()
	return p
}

// colorWanted says whether the environment allows colour: not when
// NO_COLOR is set to anything (https://no-color.org), nor on a dumb
// terminal.
func colorWanted(getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// paint wraps s in the style's escape codes when colour is on.
func (p *printer) paint(style, s string) string {
	if !p.color || s == "" {
		return s
	}
	return "\x1b[" + style + "m" + s + "\x1b[0m"
}

func (p *printer) linef(format string, args ...any) {
	fmt.Fprintf(p.w, format+"\n", args...)
}

// styledf prints one line in a style.
func (p *printer) styledf(style, format string, args ...any) {
	fmt.Fprintln(p.w, p.paint(style, fmt.Sprintf(format, args...)))
}

// errorf prints a line in red.
func (p *printer) errorf(format string, args ...any) { p.styledf(styleRed, format, args...) }

// block prints text as it is, each line indented by indent, ending with
// a line break.
func (p *printer) block(indent, text string) {
	text = strings.TrimRight(text, "\n")
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintln(p.w, strings.TrimRight(indent+line, " "))
	}
}

// refreshWidth reads the terminal's width again (it may have been resized).
func (p *printer) refreshWidth() { p.width, _ = terminalSize(p.w) }
