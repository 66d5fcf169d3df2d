package tools

import (
	"fmt"
	"strings"
	"sync"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// Prompt builds an episode's opening messages: a system message that
// explains the task, the SQL dialect ("sqlite", "postgres" or "mysql"), the tools
// and exactly how to call them in the action format, and the turn budget;
// then a user message with the question, and the evidence as "External
// knowledge: ..." when the task has some. An unknown format is treated as
// hermes.
//
// The schema is deliberately not in the prompt: the model is told to
// inspect it (see the package documentation for why).
//
// The tools described are protocol v1's default set; PromptTools
// describes another.
func Prompt(task *env.Task, dialect env.Dialect, format string, maxTurns int) []schemas.Message {
	return PromptTools(task, dialect, format, maxTurns, DefaultSet())
}

// PromptTools is Prompt for an episode that offers the tools of set: the
// hermes instructions name each of them, and the tags format (whose two
// tags call execute_sql and submit) leaves out <sql> when execute_sql is
// not offered.
func PromptTools(task *env.Task, dialect env.Dialect, format string, maxTurns int, set Set) []schemas.Message {
	return PromptFor(task, PromptSpec{Dialect: dialect, Format: format, MaxTurns: maxTurns, Tools: set})
}

// PromptSpec is what an episode's system message depends on.
type PromptSpec struct {
	Dialect  env.Dialect
	Format   string // the action format, for the text style
	Style    string // schemas.PromptStyle*; "" is text
	MaxTurns int
	Tools    Set
	// RowLimit and MaxCalls are rules the native style states: the rows
	// a result shows, and the calls of one reply that run (0: not
	// stated).
	RowLimit, MaxCalls int
}

// ValidPromptStyle reports whether style names a prompt style.
func ValidPromptStyle(style string) bool {
	return style == schemas.PromptStyleText || style == schemas.PromptStyleNative
}

// PromptFor builds an episode's opening messages in the style p names:
// the text style is Prompt's; the native style's system message (see
// nativeSystemPrompt) names no tool and no call syntax, which the chat
// template writes from tools=. The user message is the same in both.
func PromptFor(task *env.Task, p PromptSpec) []schemas.Message {
	user := task.Question
	if ev := strings.TrimSpace(task.Evidence); ev != "" {
		user += "\n\nExternal knowledge: " + ev
	}
	return []schemas.Message{
		{Role: "system", Content: systemPrompt(p)},
		{Role: "user", Content: user},
	}
}

// systemPrompt is the system message of PromptFor, built once for each
// spec: it does not depend on the task, and building it anew was a fifth
// of the bytes a server allocated per reset.
func systemPrompt(p PromptSpec) string {
	key := promptKey{dialect: p.Dialect, format: p.Format, style: p.Style, maxTurns: p.MaxTurns,
		tools: strings.Join(p.Tools.Names(), ",")}
	if p.Style == schemas.PromptStyleNative {
		key.format, key.rowLimit, key.maxCalls = "", p.RowLimit, p.MaxCalls
	}
	prompts.Lock()
	text, ok := prompts.m[key]
	prompts.Unlock()
	if ok {
		return text
	}
	if p.Style == schemas.PromptStyleNative {
		text = nativeSystemPrompt(p)
	} else {
		text = buildSystemPrompt(p.Dialect, p.Format, p.MaxTurns, p.Tools)
	}
	prompts.Lock()
	if len(prompts.m) < maxCachedPrompts {
		prompts.m[key] = text
	}
	prompts.Unlock()
	return text
}

// maxCachedPrompts bounds the system messages kept: clients choose the
// turn budget and the tools of each episode, so the keys are theirs.
const maxCachedPrompts = 1024

type promptKey struct {
	dialect            env.Dialect
	format, style      string
	maxTurns           int
	tools              string // the set's names, comma-separated
	rowLimit, maxCalls int    // the native style's
}

// prompts are the system messages built so far.
var prompts = struct {
	sync.Mutex
	m map[promptKey]string
}{m: map[promptKey]string{}}

func buildSystemPrompt(dialect env.Dialect, format string, maxTurns int, set Set) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You answer questions about a database by writing %s SQL. ", dialect.Title())
	b.WriteString("You work in turns: in each turn you take one action and its result comes back to you.\n\n")
	if format == schemas.FormatTags {
		b.WriteString(tagsInstructions(dialect, set))
	} else {
		b.WriteString(hermesInstructions(set))
	}
	b.WriteString("\n\nRules:\n")
	writeSQLRules(&b, dialect, "action")
	b.WriteString("- " + budgetLine(maxTurns, "action"))
	return b.String()
}

// writeSQLRules writes the rules on the SQL of every style: one
// read-only statement per unit (an action, a query), the answer's
// columns, and MySQL's dialect notes.
func writeSQLRules(b *strings.Builder, dialect env.Dialect, unit string) {
	b.WriteString("- One SQL statement per " + unit + ", read-only (SELECT, or WITH ... SELECT). Statements that write are refused, and so are several statements separated by semicolons.\n")
	b.WriteString("- Your final query's result should answer the question exactly: the columns asked for, in the order asked, and no others.\n")
	if dialect == env.MySQL {
		b.WriteString("- " + mysqlNotes + "\n")
	}
}

func hermesInstructions(set Set) string {
	var b strings.Builder
	b.WriteString(hermesGuide(set))
	b.WriteString("\n\nTools:\n")
	for _, e := range set.all() {
		b.WriteString("- " + e.prompt + "\n")
	}
	example := `{"name": "execute_sql", "arguments": {"sql": "SELECT count(*) FROM singer"}}`
	if !set.Has(schemas.ToolExecuteSQL) {
		example = `{"name": "submit", "arguments": {"sql": "SELECT count(*) FROM singer"}}`
	}
	b.WriteString(`
To call a tool, write one call in this form, after any reasoning:
<tool_call>
` + example + `
</tool_call>
The arguments are a JSON object: escape double quotes and line breaks inside strings as JSON requires. Several calls in one reply run in order, and a call after a submit does not run; a reply with no call wastes the turn.`)
	return b.String()
}

// hermesGuide is the hermes prompt's paragraph on how to use the tools
// offered.
func hermesGuide(set Set) string {
	var parts []string
	switch {
	case set.Has(schemas.ToolInspectSchema):
		parts = append(parts, "You do not see the database schema yet: start with inspect_schema to list the tables and their columns, then inspect single tables for their keys and sample rows.")
	case set.Has(schemas.ToolExecuteSQL):
		parts = append(parts, "You do not see the database schema yet: explore it with execute_sql first.")
	}
	if set.Has(schemas.ToolExecuteSQL) {
		parts = append(parts, "Use execute_sql to look at the data and to test your query.")
	}
	if set.Has(schemas.ToolSearchValues) {
		parts = append(parts, "Use search_values to find which table and column hold a value the question names, spelled as the database stores it.")
	}
	if set.Has(schemas.ToolDescribeColumn) {
		parts = append(parts, "Use describe_column to see what a column holds: its types, NULLs, distinct and most frequent values.")
	}
	parts = append(parts, "When you are sure, submit your final query: it is run and compared with the expected answer, and the episode ends.")
	return strings.Join(parts, " ")
}

func tagsInstructions(dialect env.Dialect, set Set) string {
	if !set.Has(schemas.ToolExecuteSQL) {
		return `Actions:
- <solution>SELECT ...</solution> submits your final query: it is run and compared with the expected answer, and the episode ends.

Write one action per reply, after any reasoning; only the first action in a reply runs, and a reply with no action wastes the turn.`
	}
	return `Actions:
- <sql>SELECT ...</sql> runs one statement and shows the first rows of its result, or the error. Use it to explore the database and to test your query.
- <solution>SELECT ...</solution> submits your final query: it is run and compared with the expected answer, and the episode ends.

You do not see the database schema yet: explore it with SQL first. ` + schemaHint(dialect) + `

Write one action per reply, after any reasoning; only the first action in a reply runs, and a reply with no action wastes the turn.`
}

// schemaHint tells the model how to list the tables in SQL.
func schemaHint(dialect env.Dialect) string {
	switch dialect {
	case env.Postgres:
		return "This query lists every table with its columns: SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
	case env.MySQL:
		return "This query lists every table with its columns: SELECT table_name, column_name, column_type FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY table_name, ordinal_position"
	}
	return "This query lists every table with its CREATE statement: SELECT name, sql FROM sqlite_master WHERE type = 'table'"
}

// mysqlNotes tell the model how the MySQL dialect it writes differs from
// the SQL it may know best, as the server is set (env/mysql's session
// settings).
const mysqlNotes = `MySQL (MariaDB compatible): quote names in double quotes or backticks ("order items", ` + "`order items`" +
	`); strings take single quotes only. || is OR: join strings with CONCAT(a, b). 7 / 2 is 3.5: DIV divides integers. ` +
	`LIMIT n OFFSET m, or LIMIT m, n.`

// budgetLine states the turn budget; unit is what uses a turn (an
// action, a reply).
func budgetLine(maxTurns int, unit string) string {
	const tail = "If they run out before you submit, the episode ends without an answer."
	switch {
	case maxTurns <= 0:
		return "Your turns are limited, and every " + unit + " uses one, failed ones included. " + tail
	case maxTurns == 1:
		return "You have 1 turn: your only " + unit + " must be the submission."
	}
	return fmt.Sprintf("You have %d turns, and every %s uses one, failed ones included. %s", maxTurns, unit, tail)
}
