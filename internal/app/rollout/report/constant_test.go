package report_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

// answer is an episode of task id that submitted sql with the outcome.
func answer(id, ep, sql, outcome string) *schemas.Trajectory {
	t := submitted(0, sql, outcome)
	t.EpisodeID, t.Task.TaskID, t.Tags = ep, id, nil
	return t
}

// guarded is a correct answer the server paid as a mismatch under
// final.requires_table_read: it read no table, as recorded.
func guarded(id, ep, sql string) *schemas.Trajectory {
	t := answer(id, ep, sql, schemas.OutcomeCorrect)
	t.RewardSpec.Final.RequiresTableRead = true
	t.Steps[0].RewardComponents = map[string]float64{reward.ComponentFinalMismatch: 0}
	return t
}

// TestConstantAnswersCountedAndListed: without the databases, a correct
// answer reads no table when the episode recorded so (the table-read
// guard paid it as a mismatch) or its SQL has no FROM; such answers are
// counted, in the breakdowns too, listed by task, and the terminal report
// names them and how they were told. Wrong answers and answers that read
// a table are not.
func TestConstantAnswersCountedAndListed(t *testing.T) {
	long := "SELECT '" + strings.Repeat("x", 300) + "'"
	eps := []*schemas.Trajectory{
		answer("d/147", "e1", "SELECT 1", schemas.OutcomeCorrect),
		answer("d/147", "e2", "select 1 -- from t", schemas.OutcomeCorrect), // FROM in a comment
		answer("d/147", "e3", "SELECT a FROM t", schemas.OutcomeCorrect),
		answer("d/2", "e4", "SELECT 5", schemas.OutcomeMismatch),
		answer("d/3", "e5", "SELECT 13 FROM (SELECT 1)", schemas.OutcomeCorrect), // missed by text alone
		guarded("d/4", "e6", "SELECT 13 FROM (SELECT 1)"),
		answer("d/5", "e7", long, schemas.OutcomeCorrect),
	}
	rep := report.Build(context.Background(), eps, report.Options{})
	want := []report.ConstantAnswer{
		{TaskID: "d/147", Episodes: 2, EpisodeID: "e1", SQL: "SELECT 1"},
		{TaskID: "d/4", Episodes: 1, EpisodeID: "e6", SQL: "SELECT 13 FROM (SELECT 1)"},
		{TaskID: "d/5", Episodes: 1, EpisodeID: "e7", SQL: long[:200] + "..."},
	}
	got, _ := json.Marshal(rep.ConstantAnswers)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("constant answers\n%s\nwant\n%s", got, wantJSON)
	}
	if rep.CorrectNoTableRead != 4 || rep.ByDB["d/db"].CorrectNoTableRead != 4 || rep.NoTableReadCheck != report.CheckSQLText {
		t.Errorf("counted %d (by db %d) by %s, want 4 by %s", rep.CorrectNoTableRead, rep.ByDB["d/db"].CorrectNoTableRead,
			rep.NoTableReadCheck, report.CheckSQLText)
	}
	if rep.MeanAccuracy != 6.0/7 {
		t.Errorf("mean %v, want 6/7: a constant answer still counts as correct", rep.MeanAccuracy)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"4 of 6 correct episodes, in 3 tasks (as recorded under final.requires_table_read, else by SQL text: only a query without FROM is caught",
		"d/147: 2, e.g. e1: SELECT 1\n", "d/4: 1, e.g. e6: SELECT 13 FROM (SELECT 1)\n"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, &out)
		}
	}
}

// TestConstantAnswersListedUpToTen: the terminal lists ten tasks and
// says how many more report.json holds.
func TestConstantAnswersListedUpToTen(t *testing.T) {
	var eps []*schemas.Trajectory
	for i := range 12 {
		eps = append(eps, answer(string(rune('a'+i)), "e", "SELECT 1", schemas.OutcomeCorrect))
	}
	rep := report.Build(context.Background(), eps, report.Options{})
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "j: 1, e.g.") || strings.Contains(out.String(), "k: 1, e.g.") ||
		!strings.Contains(out.String(), "... and 2 more tasks (report.json lists them all)") || len(rep.ConstantAnswers) != 12 {
		t.Errorf("report.json lists %d tasks, want 12; terminal:\n%s", len(rep.ConstantAnswers), &out)
	}
}
