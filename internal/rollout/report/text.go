package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report as terminal tables: the headline numbers,
// then outcomes, turns, tool calls, and the breakdowns by difficulty and
// by database.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "run\t%s\nmodel\t%s\n", orNone(r.Run), orNone(r.Model))
	fmt.Fprintf(tw, "tasks\t%d\nsamples per task\t%d\nepisodes\t%d\n", r.Tasks, r.Samples, r.Episodes)
	if r.Unfinished > 0 {
		fmt.Fprintf(tw, "unfinished samples\t%d (closed early; a resume plays them again)\n", r.Unfinished)
	}
	fmt.Fprintf(tw, "pass@k\t%s\n", passLine(r.PassAtK))
	fmt.Fprintf(tw, "mean accuracy\t%s\n", pct(r.MeanAccuracy))
	fmt.Fprintf(tw, "self-consistency\t%s (%s)\n", pct(r.SCAccuracy), voteNote(r.SCVote))
	fmt.Fprintf(tw, "first-shot\t%s\nafter repair\t%s\n", pct(r.FirstShotAccuracy), pct(r.AfterRepairAccuracy))
	if r.Tokens.Episodes > 0 {
		fmt.Fprintf(tw, "tokens\t%d prompt, %d completion (%d episodes)\n", r.Tokens.Prompt, r.Tokens.Completion, r.Tokens.Episodes)
	}
	fmt.Fprintf(tw, "outcomes\t%s\n", countLine(r.Outcomes, false))
	fmt.Fprintf(tw, "turns used\t%s\n", countLine(r.Turns, true))
	fmt.Fprintf(tw, "tool calls\t%s\n", countLine(r.ToolCalls, false))
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeBreakdown(w, "difficulty", r.ByDifficulty, r.Samples); err != nil {
		return err
	}
	return writeBreakdown(w, "database", r.ByDB, r.Samples)
}

// voteNote says what the self-consistency votes compared.
func voteNote(kind string) string {
	if kind == "result_set" {
		return "vote by result set"
	}
	return "vote by normalized SQL text, not by result set: the databases were not loaded"
}

// writeBreakdown writes one row per group, in name order.
func writeBreakdown(w io.Writer, title string, groups map[string]*Stats, k int) error {
	fmt.Fprintf(w, "\nby %s\n", title)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	passK := func(m map[string]float64) string { return "\t" + pctOf(m, k) }
	head := fmt.Sprintf("\tpass@%d", k)
	if k <= 1 { // pass@1 is already there
		passK, head = func(map[string]float64) string { return "" }, ""
	}
	fmt.Fprintf(tw, "%s\ttasks\tepisodes\tpass@1%s\tmean\tSC\tfirst-shot\trepair\t\n", title, head)
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		s := groups[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s%s\t%s\t%s\t%s\t%s\t\n", name, s.Tasks, s.Episodes,
			pctOf(s.PassAtK, 1), passK(s.PassAtK), pct(s.MeanAccuracy), pct(s.SCAccuracy),
			pct(s.FirstShotAccuracy), pct(s.AfterRepairAccuracy))
	}
	return tw.Flush()
}

func pctOf(m map[string]float64, k int) string {
	v, ok := m[itoa(k)]
	if !ok {
		return "-"
	}
	return pct(v)
}

func pct(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

func passLine(m map[string]float64) string {
	var parts []string
	for k := 1; k <= len(m); k++ {
		parts = append(parts, fmt.Sprintf("@%d %s", k, pctOf(m, k)))
	}
	return orNone(strings.Join(parts, "  "))
}

// countLine lists counts by name, or by number when numeric.
func countLine(m map[string]int, numeric bool) string {
	keys := slices.Sorted(maps.Keys(m))
	if numeric {
		slices.SortFunc(keys, func(a, b string) int {
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			return x - y
		})
	}
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return orNone(strings.Join(parts, ", "))
}
