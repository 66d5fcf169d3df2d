package report

import (
	"context"
	"encoding/json"

	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/schemas"
)

// fact is what the report needs of one episode; the episode itself is
// not kept.
type fact struct {
	episode   string
	order     int // the sample index, or the episode's place in the run
	correct   bool
	vote      string // the submission's vote key; "" when it did not run
	firstShot bool
	noTable   bool   // correct, and the submission read no table of the database
	sql       string // the submitted SQL, kept when noTable
	usage     *Usage
	fail      *failure // what a failing episode last submitted, and what came of it
}

func newFact(ctx context.Context, t *schemas.Trajectory, order int, o Options) *fact {
	f := &fact{episode: t.EpisodeID, order: order, correct: t.Outcome == schemas.OutcomeCorrect}
	if u, ok := o.Usage[t.EpisodeID]; ok {
		f.usage = &u
	}
	if !f.correct {
		f.fail = failureOf(t)
	}
	last := len(t.Steps) - 1
	if last < 0 || t.Steps[last].Tool != "submit" ||
		t.Outcome != schemas.OutcomeCorrect && t.Outcome != schemas.OutcomeMismatch {
		return f
	}
	sql, _ := sqlOf(&t.Steps[last])
	f.vote = voteKey(ctx, o.Voter, t.Task, sql)
	f.firstShot = f.correct && firstShot(ctx, o.Voter, t, f.vote)
	if f.correct && readsNoTable(ctx, o.Tables, t, sql) {
		f.noTable, f.sql = true, sql
	}
	return f
}

// firstShot reports whether a correct episode had no error before its
// submit and its first executed query (by execute_sql or submit) was
// already correct: the submit itself, or a query returning what the
// submit returned (with no voter: the same query, normalized).
func firstShot(ctx context.Context, v Voter, t *schemas.Trajectory, submitted string) bool {
	last := len(t.Steps) - 1
	first := -1
	for i, st := range t.Steps[:last] {
		if st.Error != nil {
			return false
		}
		if first < 0 && st.Tool == "execute_sql" {
			first = i
		}
	}
	if first < 0 {
		return true
	}
	sql, ok := sqlOf(&t.Steps[first])
	return ok && voteKey(ctx, v, t.Task, sql) == submitted
}

// voteKey keys a query by its result (with a voter) or its normalized
// text; "" when it did not run.
func voteKey(ctx context.Context, v Voter, task schemas.TaskView, sql string) string {
	if v == nil {
		return "sql:" + sqltext.Normalize(sql)
	}
	k, ok := v.ResultKey(ctx, task, sql)
	if !ok {
		return ""
	}
	return "rows:" + k
}

// sqlOf is the sql argument of a step's call.
func sqlOf(st *schemas.StepRecord) (string, bool) {
	raw := st.Arguments
	if len(raw) == 0 {
		raw = st.Action.Arguments
	}
	return argSQL(raw)
}

// argSQL is the sql field of a call's arguments.
func argSQL(raw json.RawMessage) (string, bool) {
	var a struct {
		SQL *string `json:"sql"`
	}
	if json.Unmarshal(raw, &a) != nil || a.SQL == nil {
		return "", false
	}
	return *a.SQL, true
}
