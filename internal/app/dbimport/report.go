package dbimport

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// Report is what an import did: each database copied, and what became of
// each task's gold.
type Report struct {
	Dataset   string         `json:"dataset"`
	Databases []*DBCopy      `json:"databases"`
	Tasks     []TaskGold     `json:"tasks"`
	Counts    map[string]int `json:"counts"` // tasks per category
	// Target is the engine imported into, as the text names it;
	// "PostgreSQL" when empty.
	Target string `json:"target,omitempty"`
	// Suites is what carrying the dataset's test suites did; nil when
	// none were asked for.
	Suites *SuitesReport `json:"suites,omitempty"`
}

// SuitesReport is what carrying a dataset's test suites onto the target
// did.
type SuitesReport struct {
	Databases int      `json:"databases"`         // suite databases carried
	Golds     int      `json:"golds"`             // target golds given a suite (of zero databases or more)
	Missing   []string `json:"missing,omitempty"` // db_ids with golds and no suites
	Stale     []string `json:"stale,omitempty"`   // db_ids whose suites no longer serve, with why
	Dropped   []string `json:"dropped,omitempty"` // suite databases not carried, with why
	// GoldsWithout are the suite databases a target gold does not keep
	// (it returns other rows there than the SQLite gold), with why.
	GoldsWithout []string `json:"golds_without,omitempty"`
}

// TaskGold is one task's line of the report.
type TaskGold struct {
	TaskID   string   `json:"task_id"`
	DBID     string   `json:"db_id"`
	Category string   `json:"category"`
	Rules    []string `json:"rules,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	// Tried is the PostgreSQL statement run and not kept, for a task with
	// answer rows only.
	Tried string `json:"tried_sql,omitempty"`
	// Ties is set for a task with answer rows only whose SQLite gold has
	// ties: every right answer is kept (gold_segments).
	Ties bool `json:"ties,omitempty"`
}

func (r *Report) add(t *env.Task, g *Gold) {
	if r.Counts == nil {
		r.Counts = map[string]int{}
	}
	r.Counts[g.Category]++
	r.Tasks = append(r.Tasks, TaskGold{TaskID: taskKey(t), DBID: t.DBID, Category: g.Category, Rules: g.Rules, Reason: g.Reason, Tried: g.Tried, Ties: len(g.Segments) > 0})
}

// WriteText writes the report for people: the databases with their rows,
// coercions and the constraints left out, the tasks per category, the
// rewrite rules used, and each task without a PostgreSQL gold with its
// reason.
func (r *Report) WriteText(w io.Writer) {
	r.writeDatabases(w)
	r.writeTotals(w)
	r.writeTaskLines(w, -1)
	r.Suites.writeText(w)
}

// SummaryTasks is how many answer-only and unusable tasks WriteSummary
// lists; report.txt lists every one.
const SummaryTasks = 5

// WriteSummary writes the report for a terminal: as WriteText, but the
// answer-only and unusable tasks folded to their count and the first
// SummaryTasks (ReportTextFile lists every one), and the tasks' totals
// last, where they are seen.
func (r *Report) WriteSummary(w io.Writer) {
	r.writeDatabases(w)
	r.writeTaskLines(w, SummaryTasks)
	r.Suites.writeText(w)
	r.writeTotals(w)
}

// writeDatabases writes the databases copied, each with its rows, its
// coercions and its notes.
func (r *Report) writeDatabases(w io.Writer) {
	var rows int64
	for _, d := range r.Databases {
		rows += d.Rows()
	}
	fmt.Fprintf(w, "dataset %s: %d databases, %d rows copied\n", r.Dataset, len(r.Databases), rows)
	for _, d := range r.Databases {
		fmt.Fprintf(w, "  %s: %d tables, %d rows\n", d.DBID, len(d.Tables), d.Rows())
		for _, c := range d.Coercions() {
			col := c.Column
			fmt.Fprintf(w, "    coerced %s.%s (declared %q, now %s): %d of %d values: %s", c.Table, col.Name,
				col.Declared, col.Type, col.Coerced, col.Classes.Total(), col.How)
			if col.Repaired > 0 {
				fmt.Fprintf(w, "; %d text values had NUL bytes or invalid UTF-8 replaced", col.Repaired)
			}
			fmt.Fprintln(w)
		}
		for _, n := range d.Notes {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
}

// writeTotals writes the tasks' count by category, the share with gold
// SQL on the target, and the rewrite rules used.
func (r *Report) writeTotals(w io.Writer) {
	n := len(r.Tasks)
	fmt.Fprintf(w, "tasks %d: kept as written %d, rewritten and verified %d, answer rows only %d, unusable %d\n",
		n, r.Counts[Kept], r.Counts[Rewritten], r.Counts[AnswerOnly], r.Counts[Unusable])
	if n > 0 {
		target := r.Target
		if target == "" {
			target = "PostgreSQL"
		}
		fmt.Fprintf(w, "  %s gold SQL on %.1f%% of the tasks\n", target, 100*float64(r.Counts[Kept]+r.Counts[Rewritten])/float64(n))
	}
	r.writeRules(w)
}

// writeTaskLines writes a line per answer-only or unusable task: every
// one for limit < 0, else the first limit and how many more there are.
func (r *Report) writeTaskLines(w io.Writer, limit int) {
	listed, more := 0, 0
	for _, t := range r.Tasks {
		if t.Category != AnswerOnly && t.Category != Unusable {
			continue
		}
		if limit >= 0 && listed == limit {
			more++
			continue
		}
		listed++
		ties := ""
		if t.Ties {
			ties = "; ties: every right answer kept"
		}
		fmt.Fprintf(w, "  %s %s (%s): %s%s\n", t.Category, t.TaskID, t.DBID, t.Reason, ties)
	}
	if more > 0 {
		fmt.Fprintf(w, "  ... and %d more answer-only or unusable tasks (%s lists every one)\n", more, ReportTextFile)
	}
}

// writeText writes what carrying the test suites did; nothing for nil.
func (s *SuitesReport) writeText(w io.Writer) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "test suites: %d suite databases carried, %d golds judged on them; %d databases without suites, %d stale\n",
		s.Databases, s.Golds, len(s.Missing), len(s.Stale))
	for _, line := range slices.Concat(s.Stale, s.Dropped, s.GoldsWithout) {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// writeRules counts the verified tasks each rewrite rule served.
func (r *Report) writeRules(w io.Writer) {
	count := map[string]int{}
	for _, t := range r.Tasks {
		if t.Category == Rewritten {
			for _, rule := range t.Rules {
				count[rule]++
			}
		}
	}
	rules := make([]string, 0, len(count))
	for rule := range count {
		rules = append(rules, rule)
	}
	slices.SortFunc(rules, func(a, b string) int {
		if d := count[b] - count[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for _, rule := range rules {
		fmt.Fprintf(w, "  rule %-70s %d rewritten tasks\n", rule, count[rule])
	}
}
