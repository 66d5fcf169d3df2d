package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestPassAtK(t *testing.T) {
	tests := []struct {
		n, c, k int
		want    float64
	}{
		{10, 0, 1, 0}, {10, 10, 5, 1}, {10, 3, 1, 0.3},
		{5, 2, 2, 1 - 3.0/10}, // 1 - C(3,2)/C(5,2)
		{5, 2, 4, 1},          // n-c < k
		{200, 1, 100, 0.5},    // 1 - C(199,100)/C(200,100)
	}
	for _, tt := range tests {
		if got := report.PassAtK(tt.n, tt.c, tt.k); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PassAtK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.want)
		}
	}
}

// submitted is an episode of task "d/1" whose one step submitted sql.
func submitted(sample int, sql, outcome string) *schemas.Trajectory {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return &schemas.Trajectory{EpisodeID: fmt.Sprint("ep", sample), Outcome: outcome,
		Task: schemas.TaskView{TaskID: "d/1", Dataset: "d", DBID: "db"}, Tags: json.RawMessage(fmt.Sprintf(`{"sample":%d}`, sample)),
		Steps: []schemas.StepRecord{{Turn: 1, Tool: "submit", Arguments: args, Outcome: outcome}}}
}

// TestSCVoteByText: without a voter, the normalized SQL votes; a tie
// goes to the group whose first sample came first; a closed sample is
// unfinished and left out.
func TestSCVoteByText(t *testing.T) {
	closed := submitted(4, "SELECT 9", "no_submit")
	closed.Steps[0].Outcome = ""
	tests := []struct {
		name string
		eps  []*schemas.Trajectory
		want float64
	}{
		{"majority wrong", []*schemas.Trajectory{submitted(0, "SELECT 1", "correct"),
			submitted(1, "select  2", "mismatch"), submitted(2, "SELECT 2", "mismatch"), closed}, 0},
		{"tie to the first", []*schemas.Trajectory{submitted(0, "SELECT 1", "correct"),
			submitted(1, "SELECT 2", "mismatch"), closed}, 1},
		{"errors do not vote", []*schemas.Trajectory{submitted(0, "SELEC", "pred_error"),
			submitted(1, "SELEC", "pred_error"), submitted(2, "SELECT 1", "correct")}, 1},
	}
	for _, tt := range tests {
		rep := report.Build(context.Background(), tt.eps, report.Options{})
		if rep.SCAccuracy != tt.want || rep.SCVote != "sql_text" {
			t.Errorf("%s: SC %v by %s, want %v by sql_text", tt.name, rep.SCAccuracy, rep.SCVote, tt.want)
		}
	}
	other := submitted(0, "SELECT 9", "no_submit") // a sample of another database, closed
	other.Steps[0].Outcome, other.Task.TaskID, other.Task.DBID = "", "d/2", "db2"
	rep := report.Build(context.Background(), []*schemas.Trajectory{submitted(0, "SELECT 1", "correct"), closed, other}, report.Options{})
	if rep.Unfinished != 2 || rep.Episodes != 1 {
		t.Errorf("unfinished %d, episodes %d; want 2 and 1", rep.Unfinished, rep.Episodes)
	}
	// The breakdowns count their own unfinished samples and say how they voted.
	for db, want := range map[string][2]int{"d/db": {1, 1}, "d/db2": {1, 0}} {
		s := rep.ByDB[db]
		if s == nil || s.Unfinished != want[0] || s.Episodes != want[1] || s.SCVote != "sql_text" {
			t.Errorf("by_db %s: %+v, want %d unfinished, %d episodes, sc_vote sql_text", db, s, want[0], want[1])
		}
	}
	if s := rep.ByDifficulty["unknown"]; s == nil || s.Unfinished != 2 {
		t.Errorf("by_difficulty unknown: %+v, want 2 unfinished", s)
	}
}

// TestWriteTextSaysHowVotesCompared: the terminal report says plainly
// what the votes compared, and its breakdowns show pass@K beside pass@1
// only when K is above 1.
func TestWriteTextSaysHowVotesCompared(t *testing.T) {
	tests := []struct {
		eps       []*schemas.Trajectory
		wantTable string
	}{
		{[]*schemas.Trajectory{submitted(0, "SELECT 1", "correct")}, "difficulty  tasks  episodes  pass@1    mean"},
		{[]*schemas.Trajectory{submitted(0, "SELECT 1", "correct"), submitted(1, "SELECT 2", "mismatch")},
			"difficulty  tasks  episodes  pass@1  pass@2"},
	}
	for _, tt := range tests {
		var out strings.Builder
		if err := report.Build(context.Background(), tt.eps, report.Options{}).WriteText(&out); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"(vote by normalized SQL text, not by result set", tt.wantTable} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%d samples: report lacks %q:\n%s", len(tt.eps), want, &out)
			}
		}
	}
}
