package bench

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestGoldScript plays the gold script on the demo: every episode runs
// its task's gold GoldRepeats times with execute_sql, then submits it and
// ends correct, tagged as bench traffic; the log shows each step.
func TestGoldScript(t *testing.T) {
	srv, ds, logDir := startServerLog(t, serverOptions{})
	const episodes, repeats = 90, 3
	rep, err := Run(context.Background(), Config{URL: srv.URL, Sockets: 3, EpisodesPerSocket: 8, Episodes: episodes,
		Script: ScriptGold, GoldRepeats: repeats, Tasks: tasksOf(ds)})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, rep)
	if rep.Ended != episodes || rep.Outcomes[schemas.OutcomeCorrect] != episodes || rep.ErrorCount() != 0 || len(rep.ToolErrors) != 0 {
		t.Errorf("ended %d, outcomes %v, errors %v, tool errors %v; want %d correct and no error",
			rep.Ended, rep.Outcomes, rep.Errors, rep.ToolErrors, episodes)
	}
	execs, submits := rep.Latency[stepKey("execute_sql")].Count, rep.Latency[stepKey("submit")].Count
	if execs != repeats*episodes || submits != episodes || rep.SQLSteps != (repeats+1)*episodes {
		t.Errorf("%d execute_sql, %d submit, %d SQL steps; want %d, %d, %d", execs, submits, rep.SQLSteps,
			repeats*episodes, episodes, (repeats+1)*episodes)
	}
	golds := map[string]string{}
	for _, task := range ds.Tasks {
		golds[task.ID] = task.GoldSQL
	}
	want := slices.Repeat([]string{"execute_sql"}, repeats)
	want = append(want, "submit")
	n := readLog(t, logDir, trajlog.Filter{}, func(rec *trajlog.Record) {
		var tools []string
		for _, st := range rec.Steps {
			tools = append(tools, st.Tool)
			var args struct{ SQL string }
			if json.Unmarshal(st.Arguments, &args); args.SQL != golds[rec.Task.TaskID] {
				t.Errorf("%s step %d ran %q, want the gold of %s", rec.EpisodeID, st.Turn, args.SQL, rec.Task.TaskID)
			}
		}
		if !slices.Equal(tools, want) || rec.Outcome != schemas.OutcomeCorrect {
			t.Errorf("%s: steps %v, outcome %s; want %v, correct", rec.EpisodeID, tools, rec.Outcome, want)
		}
		var tags map[string]any
		if json.Unmarshal(rec.Tags, &tags); tags[TagKey] != true || tags["script"] != ScriptGold {
			t.Errorf("%s: tags %s, want %s: true and the script", rec.EpisodeID, rec.Tags, TagKey)
		}
	})
	if n != episodes {
		t.Errorf("the log holds %d episodes, want %d", n, episodes)
	}
	if m := readLog(t, logDir, trajlog.Filter{ExcludeTags: []trajlog.Tag{{Key: TagKey, Value: TagValue}}}, nil); m != 0 {
		t.Errorf("excluding %s=%s kept %d bench episodes, want none", TagKey, TagValue, m)
	}
}

// readLog reads the episodes of the log in dir that pass f, handing each
// to fn (when set), and returns how many there were.
func readLog(t *testing.T, dir string, f trajlog.Filter, fn func(*trajlog.Record)) int {
	t.Helper()
	l, err := filelog.Open(dir, filelog.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	n := 0
	err = l.Episodes(context.Background(), f, func(rec *trajlog.Record) error {
		n++
		if fn != nil {
			fn(rec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGoldTasksChecked refuses tasks that are not the server's: another
// task at some place, fewer tasks, a dataset the server lacks.
func TestGoldTasksChecked(t *testing.T) {
	srv, ds, _ := startServerLog(t, serverOptions{})
	tasks := tasksOf(ds)
	swapped := slices.Clone(tasks)
	swapped[1], swapped[2] = swapped[2], swapped[1]
	tests := []struct {
		name    string
		dataset string
		tasks   []Task
		want    string
	}{
		{"order", "", swapped, "task 1 is " + tasks[1].ID + " on the server, " + tasks[2].ID + " here"},
		{"fewer", "demo", tasks[:3], "the server has " + strconv.Itoa(len(tasks)) + " tasks, this side 3"},
		{"dataset", "nope", tasks, "tasks.list of \"nope\""},
	}
	for _, tt := range tests {
		rep, err := Run(context.Background(), Config{URL: srv.URL, Sockets: 1, Episodes: 5, Script: ScriptGold,
			Dataset: tt.dataset, Tasks: tt.tasks})
		if err == nil || !strings.Contains(err.Error(), tt.want) || rep != nil {
			t.Errorf("%s: Run = %v, want no report and an error saying %q", tt.name, err, tt.want)
		}
	}
	if _, err := Run(context.Background(), Config{URL: srv.URL, Script: ScriptGold}); err == nil || !strings.Contains(err.Error(), "needs the dataset's tasks") {
		t.Errorf("the gold script without tasks: %v", err)
	}
	noGold := slices.Clone(tasks)
	noGold[4].GoldSQL = ""
	if _, err := Run(context.Background(), Config{URL: srv.URL, Script: ScriptGold, Tasks: noGold}); err == nil || !strings.Contains(err.Error(), noGold[4].ID+" has none") {
		t.Errorf("the gold script with a task without gold: %v", err)
	}
}

// TestBaselineRunsFirst checks that the baseline runs once, before any
// episode starts, and that the report divides the SQL steps/s by its
// rate; a failing baseline fails the run before its episodes.
func TestBaselineRunsFirst(t *testing.T) {
	srv, ds, _ := startServerLog(t, serverOptions{})
	calls := 0
	base := func(ctx context.Context) (*Baseline, error) {
		calls++
		info, err := srv.Dial(t).Info(ctx)
		if err != nil || info.Stats.Started != 0 {
			t.Errorf("when the baseline ran: %v, %d episodes started; want none", err, info.Stats.Started)
		}
		return &Baseline{Statements: 5000, Workers: 2, Elapsed: 2, PerS: 2500}, nil
	}
	rep, err := Run(context.Background(), Config{URL: srv.URL, Sockets: 2, EpisodesPerSocket: 4, Episodes: 40,
		Script: ScriptGold, Tasks: tasksOf(ds), Baseline: base})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || rep.Baseline == nil || rep.Baseline.PerS != 2500 || rep.Ratio != rep.SQLStepsPerS/2500 || rep.Ratio <= 0 {
		t.Errorf("baseline called %d times, report baseline %+v, ratio %v for %v SQL steps/s; want once, 2500/s, their ratio",
			calls, rep.Baseline, rep.Ratio, rep.SQLStepsPerS)
	}
	if b := rep.Baseline; b.CPU < 0 || b.CPUPerStatementUS != b.CPU*1e6/5000 {
		t.Errorf("baseline CPU %v s, %v us per statement; want this process's CPU over its 5000 statements", b.CPU, b.CPUPerStatementUS)
	}
	var text strings.Builder
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "ratio of SQL steps/s to it") {
		t.Errorf("the text report lacks the ratio:\n%s", text.String())
	}
	failing := func(context.Context) (*Baseline, error) { return nil, errors.New("disk on fire") }
	_, err = Run(context.Background(), Config{URL: srv.URL, Episodes: 5, Script: ScriptGold, Tasks: tasksOf(ds), Baseline: failing})
	if err == nil || !strings.Contains(err.Error(), "baseline: disk on fire") {
		t.Errorf("a failing baseline: %v", err)
	}
}
