package report

import (
	"context"
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/schemas"
)

// How the report tells a correct answer that reads no table
// (Report.NoTableReadCheck).
const (
	// CheckTablesRead: the submission was judged again on its database,
	// which says which tables it read, as eval and the server judge it.
	CheckTablesRead = "tables_read"
	// CheckSQLText: the databases were not at hand, so only a submission
	// without a FROM clause (SELECT 1) counts: one that reads no table
	// behind a FROM (FROM (SELECT 1)) is missed.
	CheckSQLText = "sql_text"
)

// finalMismatch is the final.mismatch reward component
// (reward.ComponentFinalMismatch), which the server pays instead of
// final.correct on a correct answer that reads no table when the spec
// sets final.requires_table_read.
const finalMismatch = "final.mismatch"

// maxConstantSQL bounds the SQL a ConstantAnswer quotes, in bytes.
const maxConstantSQL = 200

// ConstantAnswer is a task some of whose correct episodes submitted a
// query that reads no table of the database while the gold does
// (SELECT 1 when the answer is 1): right by coincidence, not by reading
// the data. Eval counts the same as "correct reading no table".
type ConstantAnswer struct {
	TaskID    string `json:"task_id"`
	Episodes  int    `json:"episodes"`   // the task's correct episodes that read no table
	EpisodeID string `json:"episode_id"` // the first of them
	SQL       string `json:"sql"`        // what it submitted (its first 200 bytes)
}

// readsNoTable reports whether a correct submission read no table: as
// the episode recorded it (under final.requires_table_read the server
// paid exactly those as a mismatch), else as tr says, else by its text.
func readsNoTable(ctx context.Context, tr TableReader, t *schemas.Trajectory, sql string) bool {
	if t.RewardSpec.Final.RequiresTableRead {
		_, paidAsMismatch := t.Steps[len(t.Steps)-1].RewardComponents[finalMismatch]
		return paidAsMismatch
	}
	if tr != nil {
		if none, ok := tr.ReadsNoTable(ctx, t, sql); ok {
			return none
		}
	}
	return noFromClause(sql)
}

// noFromClause reports whether sql has no FROM keyword outside its
// strings, identifiers and comments: such a query reads no table.
func noFromClause(sql string) bool {
	for tok := range sqltext.All(sql) {
		if tok.Kind == sqltext.Word && strings.EqualFold(tok.Text, "from") {
			return false
		}
	}
	return true
}

// clipSQL cuts sql to maxConstantSQL bytes, on a character boundary.
func clipSQL(sql string) string { return clipText(sql, maxConstantSQL) }

// clipText cuts s to limit bytes, on a character boundary, marking the
// cut with "...".
func clipText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
