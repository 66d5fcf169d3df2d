package dbimport

import (
	"fmt"
	"strings"
	"testing"
)

// The terminal summary lists the first few answer-only tasks, counts the
// rest, and ends on the tasks' totals; report.txt's text lists every one.
func TestSummaryFoldsTheTaskLines(t *testing.T) {
	r := &Report{Dataset: "shop", Target: "PostgreSQL", Counts: map[string]int{AnswerOnly: 12, Kept: 3}}
	for i := range 15 {
		cat := AnswerOnly
		if i >= 12 {
			cat = Kept
		}
		r.Tasks = append(r.Tasks, TaskGold{TaskID: fmt.Sprintf("shop/%d", i), DBID: "shop", Category: cat, Reason: "no rewrite verified"})
	}
	var full, short strings.Builder
	r.WriteText(&full)
	r.WriteSummary(&short)
	if n := strings.Count(full.String(), "  answer_only shop/"); n != 12 {
		t.Errorf("WriteText lists %d answer-only tasks, want all 12:\n%s", n, &full)
	}
	if n := strings.Count(short.String(), "  answer_only shop/"); n != SummaryTasks {
		t.Errorf("WriteSummary lists %d answer-only tasks, want %d:\n%s", n, SummaryTasks, &short)
	}
	if !strings.Contains(short.String(), fmt.Sprintf("... and %d more answer-only or unusable tasks (report.txt lists every one)", 12-SummaryTasks)) {
		t.Errorf("WriteSummary does not count the tasks it leaves out:\n%s", &short)
	}
	lines := strings.Split(strings.TrimSpace(short.String()), "\n")
	if tail := strings.Join(lines[len(lines)-2:], "\n"); !strings.HasPrefix(tail, "tasks 15: kept as written 3") {
		t.Errorf("WriteSummary does not end on the totals:\n%s", &short)
	}
}
