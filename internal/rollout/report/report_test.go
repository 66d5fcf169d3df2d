package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/sqlgym/sqlgym/internal/rollout/report"
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
	rep := report.Build(context.Background(), []*schemas.Trajectory{submitted(0, "SELECT 1", "correct"), closed}, report.Options{})
	if rep.Unfinished != 1 || rep.Episodes != 1 {
		t.Errorf("unfinished %d, episodes %d; want 1 and 1", rep.Unfinished, rep.Episodes)
	}
}
