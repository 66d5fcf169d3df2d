package tools

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// nativeSystemPrompt is the native style's system message: the task, the
// dialect and the environment's rules (what submitting does, one
// read-only statement, the rows a result shows, the calls of one reply
// that run, the turn budget). It names no tool and no call syntax, and
// lists no tool: a client of this style renders the chat with tools=,
// and the chat template writes the tools and how to call them in its own
// words, once.
func nativeSystemPrompt(p PromptSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You answer questions about a database by writing %s SQL. ", p.Dialect.Title())
	b.WriteString("You work in turns: in each turn you call the tools you are given, and their results come back to you.\n\n")
	if p.Tools.Has(schemas.ToolExecuteSQL) || p.Tools.Has(schemas.ToolInspectSchema) {
		b.WriteString("You do not see the database schema yet: explore the database with the tools first, and test your query on it. ")
	}
	b.WriteString("When you are sure, submit your final query: it is run and compared with the expected answer, and the episode ends.\n\n")
	b.WriteString("Rules:\n")
	writeSQLRules(&b, p.Dialect, "query")
	if p.RowLimit > 0 {
		fmt.Fprintf(&b, "- A query's result shows its first %d rows at most, and says when there were more.\n", p.RowLimit)
	}
	b.WriteString("- " + nativeCallsLine(p.MaxCalls) + "\n")
	b.WriteString("- " + budgetLine(p.MaxTurns, "reply"))
	return b.String()
}

// nativeCallsLine says how the calls of one reply run.
func nativeCallsLine(maxCalls int) string {
	line := "Several calls in one reply run in order, and a call after the submission does not run"
	if maxCalls > 0 {
		line += fmt.Sprintf("; at most %d calls of one reply run", maxCalls)
	}
	return line + ". A reply with no call wastes the turn."
}

// RecordedSystemPrompt is the system message an episode recorded as t
// gets in style: its dialect, action format, turn budget, tools and
// calls per turn, as the record has them. The row limit, which a record
// does not keep, is not stated; nor are the calls per turn of a record
// made before they were kept.
func RecordedSystemPrompt(t *schemas.Trajectory, style string) string {
	return systemPrompt(PromptSpec{Dialect: env.Dialect(t.Task.Dialect), Format: t.ActionFormat, Style: style,
		MaxTurns: t.MaxTurns, Tools: Recorded(t.Tools), MaxCalls: t.MaxCallsPerTurn})
}
