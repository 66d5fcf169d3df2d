package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// WriteText writes the report as terminal tables: the headline numbers,
// then outcomes, turns, tool calls, the correct answers that read no
// table, the breakdowns by difficulty and by database, and the first
// failed tasks.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "run\t%s\nmodel\t%s\n", orNone(r.Run), orNone(r.Model))
	fmt.Fprintf(tw, "tasks\t%d\nsamples per task\t%s\nepisodes\t%d\n", r.Tasks, sampleRange(&r.Stats), r.Episodes)
	if r.Unfinished > 0 {
		fmt.Fprintf(tw, "unfinished samples\t%d (closed early; a resume plays them again)\n", r.Unfinished)
	}
	fmt.Fprintf(tw, "pass@k\t%s\n", passLine(&r.Stats))
	fmt.Fprintf(tw, "mean accuracy\t%s\n", Pct(r.MeanAccuracy))
	fmt.Fprintf(tw, "self-consistency\t%s (%s)\n", Pct(r.SCAccuracy), voteNote(r.SCVote))
	fmt.Fprintf(tw, "first-shot\t%s\nafter repair\t%s\n", Pct(r.FirstShotAccuracy), Pct(r.AfterRepairAccuracy))
	if r.Tokens.Episodes > 0 {
		fmt.Fprintf(tw, "tokens\t%d prompt, %d completion (%d episodes)\n", r.Tokens.Prompt, r.Tokens.Completion, r.Tokens.Episodes)
	}
	fmt.Fprintf(tw, "outcomes\t%s\n", countLine(r.Outcomes, false))
	fmt.Fprintf(tw, "turns used\t%s\n", countLine(r.Turns, true))
	fmt.Fprintf(tw, "tool calls\t%s\n", countLine(r.ToolCalls, false))
	r.writeConstants(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	k := 1
	if ks := shownKs(r.PassAtK); len(ks) > 0 {
		k = ks[len(ks)-1]
	}
	if err := writeBreakdown(w, "difficulty", r.ByDifficulty, k, env.CompareDifficulty); err != nil {
		return err
	}
	if err := writeBreakdown(w, "database", r.ByDB, k, strings.Compare); err != nil {
		return err
	}
	return r.writeFailed(w)
}

// sampleRange is the samples per task: "4", or "2 to 6" when tasks
// have different counts.
func sampleRange(s *Stats) string {
	if s.MinSamples == s.Samples {
		return itoa(s.Samples)
	}
	return fmt.Sprintf("%d to %d", s.MinSamples, s.Samples)
}

// voteNote says what the self-consistency votes compared.
func voteNote(kind string) string {
	if kind == "result_set" {
		return "vote by result set"
	}
	return "vote by normalized SQL text, not by result set: the databases were not loaded"
}

// writeBreakdown writes one row per group, in the order compare gives, with pass@k
// for k the largest of the whole run's (besides pass@1): a "*" marks a
// value over only the group's tasks that reach k, "-" a k fewer than
// half of them reach.
func writeBreakdown(w io.Writer, title string, groups map[string]*Stats, k int, compare func(a, b string) int) error {
	fmt.Fprintf(w, "\nby %s\n", title)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	passK := func(s *Stats) string { return "\t" + groupPass(s, k) }
	head := fmt.Sprintf("\tpass@%d", k)
	if k <= 1 { // pass@1 is already there
		passK, head = func(*Stats) string { return "" }, ""
	}
	fmt.Fprintf(tw, "%s\ttasks\tepisodes\tpass@1%s\tmean\tSC\tfirst-shot\trepair\t\n", title, head)
	partial := false
	for _, name := range slices.SortedFunc(maps.Keys(groups), compare) {
		s := groups[name]
		partial = partial || k > 1 && passPartial(s, k)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s%s\t%s\t%s\t%s\t%s\t\n", name, s.Tasks, s.Episodes,
			groupPass(s, 1), passK(s), Pct(s.MeanAccuracy), Pct(s.SCAccuracy),
			Pct(s.FirstShotAccuracy), Pct(s.AfterRepairAccuracy))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if partial {
		_, err := fmt.Fprintf(w, "* over the group's tasks with at least %d samples only\n", k)
		return err
	}
	return nil
}

// groupPass is a group's pass@k, marked "*" when some of its tasks do
// not reach k.
func groupPass(s *Stats, k int) string {
	v := pctOf(s.PassAtK, k)
	if passPartial(s, k) {
		v += "*"
	}
	return v
}

// passPartial reports whether a pass@k was computed over only some of
// the tasks.
func passPartial(s *Stats, k int) bool {
	m, ok := s.PassAtKTasks[itoa(k)]
	return ok && m < s.Tasks
}

func pctOf(m map[string]float64, k int) string {
	v, ok := m[itoa(k)]
	if !ok {
		return "-"
	}
	return Pct(v)
}

// Pct is a share as a percentage with one decimal: "33.3%".
func Pct(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

// passLine lists pass@k for each k shown, saying over how many tasks
// when not all, and why the larger k are left out.
func passLine(s *Stats) string {
	var parts []string
	ks := shownKs(s.PassAtK)
	for _, k := range ks {
		p := fmt.Sprintf("@%d %s", k, pctOf(s.PassAtK, k))
		if m := s.PassAtKTasks[itoa(k)]; m < s.Tasks {
			p += fmt.Sprintf(" (%d of %d tasks)", m, s.Tasks)
		}
		parts = append(parts, p)
	}
	line := orNone(strings.Join(parts, "  "))
	if len(ks) == 0 {
		return line
	}
	top := ks[len(ks)-1]
	if cs := candidateKs(s.MinSamples, s.Samples); cs[len(cs)-1] > top {
		line += fmt.Sprintf("  (k past %d left out: fewer than half the tasks have that many samples)", top)
	}
	return line
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

// constantsListed bounds the tasks with constant answers the terminal
// lists; report.json lists them all.
const constantsListed = 10

// writeConstants writes the count of correct answers that read no
// table, how they were told, and the first tasks that have them.
func (r *Report) writeConstants(tw io.Writer) {
	how := "judged again on the databases"
	if r.NoTableReadCheck != CheckTablesRead {
		how = "as recorded under final.requires_table_read, else by SQL text: only a query without FROM is caught; " +
			"give --dataset to judge on the databases"
	}
	fmt.Fprintf(tw, "correct reading no table\t%d of %d correct episodes, in %s (%s)\n",
		r.CorrectNoTableRead, r.Outcomes[schemas.OutcomeCorrect], plural(len(r.ConstantAnswers), "task"), how)
	for i, c := range r.ConstantAnswers {
		if i == constantsListed {
			fmt.Fprintf(tw, "\t... and %d more tasks (report.json lists them all)\n", len(r.ConstantAnswers)-i)
			break
		}
		fmt.Fprintf(tw, "\t%s: %d, e.g. %s: %s\n", c.TaskID, c.Episodes, c.EpisodeID, oneLine(c.SQL))
	}
}

// plural is "1 task", "2 tasks".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// oneLine folds a query's white space runs into single spaces.
func oneLine(sql string) string { return strings.Join(strings.Fields(sql), " ") }
