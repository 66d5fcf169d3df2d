package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/schemas"
)

// goldRows is a GoldCounter that knows some tasks' gold row counts and
// counts how often it was asked.
type goldRows struct {
	rows  map[string]int
	asked map[string]int
}

func (g *goldRows) GoldRows(_ context.Context, t *schemas.Trajectory) (int, bool) {
	g.asked[t.Task.TaskID]++
	n, ok := g.rows[t.Task.TaskID]
	return n, ok
}

// call is a recorded call of tool with sql.
func call(tool, sql string) schemas.CallRecord {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return schemas.CallRecord{Tool: tool, Arguments: args}
}

// TestFailedTasksListed: each task with a failing episode is listed by
// its last one, with the SQL it last submitted and what came of it (the
// submission's error; a mismatch's rows against the gold's; for an
// episode that submitted nothing, the SQL it last ran and the last error
// of any call), the larger share of failures first; the gold is asked
// once per task; the terminal says it all.
func TestFailedTasksListed(t *testing.T) {
	mismatch := func(ep, sql string, rows int) *schemas.Trajectory {
		tr := answer("d/mis", ep, sql, schemas.OutcomeMismatch)
		tr.Steps[0].ResultMeta = &schemas.ResultMeta{RowCount: rows}
		return tr
	}
	predErr := answer("d/err", "e4", "SELECT nope FROM t", schemas.OutcomePredError)
	predErr.Steps[0].Error = &schemas.ToolError{Code: schemas.ErrCodeSQL, Message: "no such column: nope"}
	// Turns with several calls, then a turn with no parseable call, then no turns left.
	noSubmit := answer("d/none", "e6", "", schemas.OutcomeNoSubmit)
	noSubmit.Steps = []schemas.StepRecord{
		{Turn: 1, Tool: "execute_sql", Calls: []schemas.CallRecord{call("execute_sql", "SELECT a FROM t"), call("execute_sql", "SELECT b\n  FROM t")}},
		{Turn: 2, Error: &schemas.ToolError{Code: schemas.ErrCodeFormat, Message: "no call"}, Outcome: schemas.OutcomeNoSubmit},
	}
	eps := []*schemas.Trajectory{
		mismatch("e1", "SELECT 1", 1),
		answer("d/mis", "e2", "SELECT a FROM t", schemas.OutcomeCorrect),
		mismatch("e3", "SELECT a, b FROM t", 3), // the last failing episode of d/mis
		predErr,
		answer("d/ok", "e5", "SELECT a FROM t", schemas.OutcomeCorrect),
		noSubmit,
		answer("d/same", "e7", "SELECT a FROM t WHERE b", schemas.OutcomeMismatch),
	}
	eps[len(eps)-1].Steps[0].ResultMeta = &schemas.ResultMeta{RowCount: 2}
	golds := &goldRows{rows: map[string]int{"d/mis": 5, "d/same": 2}, asked: map[string]int{}}
	rep := report.Build(context.Background(), eps, report.Options{Golds: golds})
	three, two, five := 3, 2, 5
	want := []report.FailedTask{
		{TaskID: "d/err", Episodes: 1, Failed: 1, EpisodeID: "e4", Outcome: "pred_error", SQL: "SELECT nope FROM t",
			SQLTool: "submit", Error: "sql_error: no such column: nope"},
		{TaskID: "d/none", Episodes: 1, Failed: 1, EpisodeID: "e6", Outcome: "no_submit", SQL: "SELECT b\n  FROM t",
			SQLTool: "execute_sql", Error: "format_error: no call"},
		{TaskID: "d/same", Episodes: 1, Failed: 1, EpisodeID: "e7", Outcome: "mismatch", SQL: "SELECT a FROM t WHERE b",
			SQLTool: "submit", Rows: &two, ExpectedRows: &two},
		{TaskID: "d/mis", Episodes: 3, Failed: 2, EpisodeID: "e3", Outcome: "mismatch", SQL: "SELECT a, b FROM t",
			SQLTool: "submit", Rows: &three, ExpectedRows: &five},
	}
	got, _ := json.Marshal(rep.FailedTasks)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("failed tasks\n%s\nwant\n%s", got, wantJSON)
	}
	if golds.asked["d/mis"] != 1 || golds.asked["d/same"] != 1 || len(golds.asked) != 2 {
		t.Errorf("gold asked %v, want once for each task with a mismatch", golds.asked)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"failed tasks: 4 of 5 (3 never right), by their last failing episode",
		"d/err   pred_error  1 of 1  sql_error: no such column: nope             SELECT nope FROM t\n",
		"d/none  no_submit   1 of 1  format_error: no call                       (execute_sql) SELECT b FROM t\n",
		"d/same  mismatch    1 of 1  2 rows as expected: values or order differ  SELECT a FROM t WHERE b\n",
		"d/mis   mismatch    2 of 3  3 rows, 5 expected                          SELECT a, b FROM t\n",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the terminal report lacks %q:\n%s", line, &text)
		}
	}
}

// TestFailedTasksBoundedByTasks: 10,000 failing episodes of 10 tasks
// list 10 tasks, each by its last episode; the terminal lists ten of 25
// failed tasks and says how many more report.json holds.
func TestFailedTasksBoundedByTasks(t *testing.T) {
	b := report.NewBuilder(report.Options{})
	for i := range 10000 {
		ep := rlEpisode(i, 10)
		ep.Outcome, ep.Steps[0].Outcome = schemas.OutcomePredError, schemas.OutcomePredError
		b.Add(context.Background(), ep)
	}
	rep := b.Report()
	if len(rep.FailedTasks) != 10 || rep.FailedTasks[0].TaskID != "d/0" || rep.FailedTasks[0].EpisodeID != "ep9990" ||
		rep.FailedTasks[0].Failed != 1000 {
		t.Errorf("failed tasks %+v; want 10, d/0 first, by its last episode ep9990, 1000 failed", rep.FailedTasks)
	}
	var eps []*schemas.Trajectory
	for i := range 25 {
		eps = append(eps, answer(fmt.Sprintf("d/%02d", i), fmt.Sprint("e", i), "SELECT 5", schemas.OutcomeMismatch))
	}
	var text bytes.Buffer
	if err := report.Build(context.Background(), eps, report.Options{}).WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "d/09 ") || strings.Contains(text.String(), "d/10 ") ||
		!strings.Contains(text.String(), "... and 15 more tasks (report.json lists them all)") {
		t.Errorf("the terminal report does not list the first ten of 25 failed tasks:\n%s", &text)
	}
}

// TestFailedTaskOfASampledRunIsItsHighestSample: a sampled run's failed
// task is told by its failing sample of the highest index, whatever the
// order the samples were recorded in (concurrent samples interleave).
func TestFailedTaskOfASampledRunIsItsHighestSample(t *testing.T) {
	eps := []*schemas.Trajectory{sampled("d/1", 2, false), sampled("d/1", 3, true), sampled("d/1", 0, false)}
	rep := report.Build(context.Background(), eps, report.Options{})
	if len(rep.FailedTasks) != 1 || rep.FailedTasks[0].EpisodeID != "d/1-2" || rep.FailedTasks[0].Failed != 2 {
		t.Errorf("failed tasks %+v, want d/1 told by sample 2, 2 of 3 failed", rep.FailedTasks)
	}
}
