package report

import (
	"cmp"
	"context"

	"github.com/sqlgym/sqlgym/schemas"
)

// maxFailedError bounds the error text a FailedTask quotes, in bytes.
const maxFailedError = 200

// FailedTask is a task some of whose counted episodes were not correct,
// told by the last of them (of a sampled run, the one of the highest
// sample index, however the samples were interleaved; otherwise the last
// recorded): what it last submitted and what came of it. The report
// keeps one per task, so their number is bounded by the tasks.
type FailedTask struct {
	TaskID    string `json:"task_id"`
	Episodes  int    `json:"episodes"`   // the task's episodes counted
	Failed    int    `json:"failed"`     // of them, the ones not correct
	EpisodeID string `json:"episode_id"` // the last of those (see FailedTask)
	Outcome   string `json:"outcome"`    // its outcome
	// SQL is the last SQL it submitted (its first 200 bytes); an episode
	// that submitted nothing gives the last SQL it ran instead, and
	// SQLTool names the tool that carried it ("submit", "execute_sql";
	// "" when it sent no SQL at all).
	SQL     string `json:"sql"`
	SQLTool string `json:"sql_tool"`
	// Error is "code: message" (its first 200 bytes) of the error the
	// submission got; for an episode that submitted nothing, the last
	// error any of its calls got. "" when there was none.
	Error string `json:"error,omitempty"`
	// Rows is the number of rows a mismatched submission returned (at
	// least that many when RowsTruncated); ExpectedRows the gold's, as
	// scoring runs it, when the databases were at hand.
	Rows          *int `json:"rows,omitempty"`
	RowsTruncated bool `json:"rows_truncated,omitempty"`
	ExpectedRows  *int `json:"expected_rows,omitempty"`
}

// GoldCounter counts the rows of an episode's gold as scoring runs it
// (under the episode's spec); ok is false when it cannot tell (the
// task's dataset is not at hand, the gold failed).
type GoldCounter interface {
	GoldRows(ctx context.Context, t *schemas.Trajectory) (rows int, ok bool)
}

// failure is what a failing episode says of itself: its FailedTask
// fields but the counts and the expected rows.
type failure struct {
	episode, outcome, sql, tool, err string
	rows                             *int
	truncated                        bool
}

// failureOf summarizes a failing episode from its steps: the last submit
// call, else the last call that carried SQL.
func failureOf(t *schemas.Trajectory) *failure {
	f := &failure{episode: t.EpisodeID, outcome: orNone(t.Outcome)}
	sub, ran, lastErr := lastCalls(t.Steps)
	c := cmp.Or(sub, ran)
	if c != nil {
		f.sql, f.tool = clipSQL(callSQL(c)), c.Tool
	}
	switch {
	case sub != nil:
		f.err = errText(sub.Error)
		if t.Outcome == schemas.OutcomeMismatch && sub.ResultMeta != nil {
			n := sub.ResultMeta.RowCount
			f.rows, f.truncated = &n, sub.ResultMeta.Truncated
		}
	default:
		f.err = errText(lastErr)
	}
	return f
}

// lastCalls finds, in the steps' calls, the last submit, the last other
// call that carried SQL, and the last error any call (or a turn with no
// parseable call) got.
func lastCalls(steps []schemas.StepRecord) (sub, ran *schemas.CallRecord, lastErr *schemas.ToolError) {
	for i := len(steps) - 1; i >= 0; i-- {
		st := &steps[i]
		calls := st.CallList()
		if len(calls) == 0 && lastErr == nil {
			lastErr = st.Error
		}
		if len(st.Calls) == 0 && len(calls) == 1 && len(calls[0].Arguments) == 0 {
			calls[0].Arguments = st.Action.Arguments // a record that kept them in the action only
		}
		for j := len(calls) - 1; j >= 0; j-- {
			c := &calls[j]
			if lastErr == nil {
				lastErr = c.Error
			}
			if _, ok := argSQL(c.Arguments); !ok {
				continue
			}
			if c.Tool == "submit" && sub == nil {
				sub = c
			} else if c.Tool != "submit" && ran == nil {
				ran = c
			}
		}
		if sub != nil {
			return sub, ran, lastErr
		}
	}
	return nil, ran, lastErr
}

// callSQL is the sql argument of a call ("" when it has none).
func callSQL(c *schemas.CallRecord) string {
	s, _ := argSQL(c.Arguments)
	return s
}

// errText is a tool error as "code: message", clipped; "" for none.
func errText(e *schemas.ToolError) string {
	if e == nil {
		return ""
	}
	return clipText(e.Code+": "+e.Message, maxFailedError)
}

// failedTask is the task's FailedTask; nil when none of its counted
// episodes failed.
func (t *taskAgg) failedTask() *FailedTask {
	f := t.fail
	if f == nil {
		return nil
	}
	ft := &FailedTask{TaskID: t.id, Episodes: t.n, Failed: t.n - t.c, EpisodeID: f.episode, Outcome: f.outcome,
		SQL: f.sql, SQLTool: f.tool, Error: f.err, Rows: f.rows, RowsTruncated: f.truncated}
	if t.gold.known && f.outcome == schemas.OutcomeMismatch {
		n := t.gold.rows
		ft.ExpectedRows = &n
	}
	return ft
}

// goldCount is a task's gold row count, asked for once.
type goldCount struct {
	rows         int
	asked, known bool
}

// need asks g for the gold's row count of t's task, the first time only.
func (gc *goldCount) need(ctx context.Context, g GoldCounter, t *schemas.Trajectory) {
	if gc.asked || g == nil {
		return
	}
	gc.asked = true
	gc.rows, gc.known = g.GoldRows(ctx, t)
}

// compareFailed orders failed tasks: the larger share of failed episodes
// first, then by task id.
func compareFailed(x, y FailedTask) int {
	if c := cmp.Compare(y.Failed*x.Episodes, x.Failed*y.Episodes); c != 0 {
		return c
	}
	return cmp.Compare(x.TaskID, y.TaskID)
}
