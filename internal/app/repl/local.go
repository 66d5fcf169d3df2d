package repl

import (
	"context"
	"encoding/json"

	"github.com/sqlgym/sqlgym/schemas"
)

// Local is what a REPL running its own server (sqlgym repl without
// --url) reads beside the episodes: the databases and golds of the tasks
// that server serves. Nothing read through it is a step: it spends no
// turn, pays nothing and is never recorded, and none of it reaches what
// a model sees. A REPL attached to a server elsewhere has none: the
// protocol has no query outside an episode's steps, and every step is
// recorded; only the tables and columns Tab completes are read there,
// with tasks.schema.
type Local interface {
	// Tables lists the tables of a task's database with their columns.
	Tables(ctx context.Context, taskID string) ([]Table, error)
	// Query runs sql on a task's database as execute_sql would: the same
	// sandbox, timeout, row limit and size bounds. A failure the SQL
	// caused comes back as the tool error a model would get.
	Query(ctx context.Context, taskID, sql string) (*schemas.ResultInfo, *schemas.ToolError, error)
	// Compare runs a submission and the task's gold as the judge scores
	// them under spec (DISTINCT removed where the match mode says, the
	// gold's rows standing in for a gold SQL that fails) and returns both
	// results.
	Compare(ctx context.Context, taskID, predSQL string, spec schemas.RewardSpec) (*Comparison, error)
}

// Table is one table of a database.
type Table struct {
	Name    string
	Columns []string
}

// Comparison is a submission's result beside its gold's, as scored.
type Comparison struct {
	Pred, Gold Result
	// Ordered is set when the order of the rows counts: the gold orders
	// them (ORDER BY) and the match mode heeds it.
	Ordered bool
	// Distinct is set when the rows compare as sets, duplicates
	// collapsed (the bird mode).
	Distinct bool
}

// Result is the rows of one statement, each cell as JSON (as the wire
// carries it): numbers exact, NULL as null.
type Result struct {
	Columns   []string // nil for a gold given as rows
	Rows      [][]json.RawMessage
	Truncated bool   // more rows were there than were read
	Err       string // the statement failed: why (Rows are empty)
}

// peek runs SQL on the current episode's database beside the episode,
// through the in-process server's catalog: no step, no turn, no record.
func (s *session) peek(ctx context.Context, rest string) {
	sql := trimStatement(rest)
	switch {
	case sql == "":
		s.out.errorf("usage: .peek SQL")
		return
	case s.local == nil:
		s.out.errorf(".peek works only with the REPL's own server (sqlgym repl without --url): at a server elsewhere " +
			"the protocol has no query outside an episode's steps, and every step costs a turn and is recorded")
		return
	case s.ep == nil:
		s.out.errorf("no episode: .peek reads the database of the current episode's task; .reset starts one")
		return
	}
	info, terr, err := s.local.Query(ctx, s.ep.reset.Task.TaskID, sql)
	s.out.styledf(styleMagenta, "peek (beside the episode: no turn spent, nothing recorded, not seen by the model)")
	switch {
	case err != nil:
		s.out.errorf("peek: %v", err)
	case terr != nil:
		s.out.errorf("error [%s]: %s", terr.Code, terr.Message)
	default:
		var raw rawResult
		b, err := schemas.Marshal(info)
		if err == nil {
			err = json.Unmarshal(b, &raw)
		}
		if err != nil {
			s.out.errorf("peek: %v", err)
			return
		}
		s.showResult(&raw)
	}
}
