package evaluate

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// Group is the score of a set of records: overall, one difficulty or one
// database.
type Group struct {
	Name           string
	Correct, Total int
	// TSCorrect and TSTotal count the records judged on test suites too
	// (Record.TS), and those correct there.
	TSCorrect, TSTotal int
}

// EX is the execution accuracy: correct over total, 0 for an empty group.
func (g Group) EX() float64 {
	if g.Total == 0 {
		return 0
	}
	return float64(g.Correct) / float64(g.Total)
}

// TS is the test-suite accuracy: correct on every database of the
// suites over the records judged so, 0 for none.
func (g Group) TS() float64 {
	if g.TSTotal == 0 {
		return 0
	}
	return float64(g.TSCorrect) / float64(g.TSTotal)
}

// Summary is what an evaluation scored.
type Summary struct {
	Overall Group
	// ByDifficulty is empty when no task has a difficulty; tasks without
	// one are in the group "-". Known levels come in their natural order
	// (easy, medium, hard, extra; simple, moderate, challenging), others
	// after them by name.
	ByDifficulty []Group
	ByDB         []Group // by name
	// Outcomes counts each outcome (gold_error and gold_timeout count
	// against EX, as on the BIRD leaderboard).
	Outcomes map[string]int
	// CorrectEmptyGold counts correct answers whose gold had no rows, the
	// matches any empty result earns.
	CorrectEmptyGold int
	// CorrectNoTableRead counts correct answers that read no table of the
	// database while the gold did: constant answers that happen to match.
	CorrectNoTableRead int
	// MeanReward is the mean final reward the spec paid.
	MeanReward float64
	// HasTS is set when the records carry test-suite verdicts.
	HasTS bool
	// ToldApart counts predictions correct under EX that the test suites
	// told apart from the gold: wrong SQL one database happened to pay.
	ToldApart int
	// WithoutSuite counts records judged for TS on their task's database
	// alone, the task having no suite; GoldTies counts golds with more
	// than one right answer on the task's database.
	WithoutSuite, GoldTies int
	// Failed lists the records not correct, in record order: where each
	// prediction is in its file, its task and its outcome.
	Failed []Record
}

// MaxListedFailures is how many failed predictions WriteText names; it
// counts the rest.
const MaxListedFailures = 20

// Summarize scores records.
func Summarize(recs []Record) *Summary {
	s := &Summary{Overall: Group{Name: "all"}, Outcomes: map[string]int{}}
	byDiff, byDB := map[string]*Group{}, map[string]*Group{}
	anyDifficulty := false
	var sum float64
	for _, r := range recs {
		diff := r.Difficulty
		if diff == "" {
			diff = "-"
		} else {
			anyDifficulty = true
		}
		for _, g := range []*Group{&s.Overall, group(byDiff, diff), group(byDB, r.DBID)} {
			g.add(r)
		}
		s.countTS(r)
		s.Outcomes[r.Outcome]++
		if !r.Correct {
			s.Failed = append(s.Failed, r)
		}
		if r.Correct && r.GoldEmpty {
			s.CorrectEmptyGold++
		}
		if r.Correct && r.NoTableRead {
			s.CorrectNoTableRead++
		}
		sum += r.Reward
	}
	if len(recs) > 0 {
		s.MeanReward = sum / float64(len(recs))
	}
	if anyDifficulty {
		s.ByDifficulty = sorted(byDiff, env.DifficultyRank)
	}
	s.ByDB = sorted(byDB, func(string) int { return 0 })
	return s
}

// add counts r in g.
func (g *Group) add(r Record) {
	g.Total++
	if r.Correct {
		g.Correct++
	}
	if r.TS != nil {
		g.TSTotal++
		if r.TS.Correct {
			g.TSCorrect++
		}
	}
}

// countTS counts what r's test-suite verdict adds to the summary.
func (s *Summary) countTS(r Record) {
	if r.TS == nil {
		return
	}
	s.HasTS = true
	if r.Correct && !r.TS.Correct {
		s.ToldApart++
	}
	if r.TS.SuiteDatabases == 0 {
		s.WithoutSuite++
	}
	if r.TS.GoldTies {
		s.GoldTies++
	}
}

func group(m map[string]*Group, name string) *Group {
	g, ok := m[name]
	if !ok {
		g = &Group{Name: name}
		m[name] = g
	}
	return g
}

// sorted lists the groups by rank, then name.
func sorted(m map[string]*Group, rank func(string) int) []Group {
	out := make([]Group, 0, len(m))
	for _, g := range m {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b Group) int {
		if d := rank(a.Name) - rank(b.Name); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// WriteText writes the summary as aligned tables: EX overall, by
// difficulty, by database, the outcome counts, then the first
// MaxListedFailures predictions that were not correct.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "EX %.3f (%d/%d)\n", s.Overall.EX(), s.Overall.Correct, s.Overall.Total)
	if s.HasTS {
		fmt.Fprintf(tw, "TS %.3f (%d/%d)\n", s.Overall.TS(), s.Overall.TSCorrect, s.Overall.TSTotal)
	}
	if len(s.ByDifficulty) > 0 {
		s.writeGroups(tw, "difficulty", s.ByDifficulty)
	} else {
		fmt.Fprintln(tw, "\n(no difficulty given by the dataset)")
	}
	s.writeGroups(tw, "database", s.ByDB)
	fmt.Fprintln(tw, "\noutcome\tcount\tshare")
	for _, o := range evalOutcomes(s.Outcomes) {
		n := s.Outcomes[o]
		fmt.Fprintf(tw, "%s\t%d\t%.3f\n", o, n, share(n, s.Overall.Total))
	}
	fmt.Fprintf(tw, "\ncorrect on an empty gold\t%d\n", s.CorrectEmptyGold)
	fmt.Fprintf(tw, "correct reading no table\t%d\n", s.CorrectNoTableRead)
	fmt.Fprintf(tw, "mean final reward\t%.4f\n", s.MeanReward)
	if s.HasTS {
		fmt.Fprintf(tw, "correct under EX, told apart by a test suite\t%d\n", s.ToldApart)
		fmt.Fprintf(tw, "judged without a suite (the task has none)\t%d\n", s.WithoutSuite)
		fmt.Fprintf(tw, "golds with more than one right answer (ties)\t%d\n", s.GoldTies)
	}
	writeFailed(tw, s.Failed, s.Overall.Total)
	return tw.Flush()
}

// writeFailed names the first MaxListedFailures failed predictions by
// their place in the predictions file, and counts the others.
func writeFailed(tw *tabwriter.Writer, failed []Record, total int) {
	if len(failed) == 0 {
		return
	}
	fmt.Fprintf(tw, "\nnot correct: %d of %d\n", len(failed), total)
	fmt.Fprintln(tw, "prediction\ttask\toutcome")
	for _, r := range failed[:min(len(failed), MaxListedFailures)] {
		pos := r.Pos
		if pos == "" {
			pos = fmt.Sprintf("index %d", r.Index)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", pos, r.TaskID, r.Outcome)
	}
	if more := len(failed) - MaxListedFailures; more > 0 {
		fmt.Fprintf(tw, "... and %d more (--out writes every verdict)\n", more)
	}
}

func (s *Summary) writeGroups(tw *tabwriter.Writer, title string, gs []Group) {
	if !s.HasTS {
		fmt.Fprintf(tw, "\n%s\tEX\tcorrect\ttotal\n", title)
		for _, g := range gs {
			fmt.Fprintf(tw, "%s\t%.3f\t%d\t%d\n", g.Name, g.EX(), g.Correct, g.Total)
		}
		return
	}
	fmt.Fprintf(tw, "\n%s\tEX\tTS\tcorrect\tTS correct\ttotal\n", title)
	for _, g := range gs {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%d\t%d\t%d\n", g.Name, g.EX(), g.TS(), g.Correct, g.TSCorrect, g.Total)
	}
}

// evalOutcomes lists the outcomes a judge gives, in report order, and any
// other outcome the records hold after them.
func evalOutcomes(counts map[string]int) []string {
	out := []string{
		schemas.OutcomeCorrect, schemas.OutcomeMismatch, schemas.OutcomePredError,
		schemas.OutcomePredTimeout, schemas.OutcomeGoldError, schemas.OutcomeGoldTimeout,
	}
	var extra []string
	for o := range counts {
		if !slices.Contains(out, o) {
			extra = append(extra, o)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

func share(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}
