package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/schemas"
)

// Target is what a tool call runs against: the episode's database, its
// dialect, and which database of which dataset it is (search_values finds
// the database's value index by it).
type Target struct {
	DB      env.DB
	Dialect env.Dialect
	Dataset *env.Dataset
	DBID    string
}

// notes are the descriptions the target's dataset ships for its
// database, or nil.
func (t Target) notes() *env.DBNotes {
	if t.Dataset == nil {
		return nil
	}
	return t.Dataset.Notes[t.DBID]
}

// entry is one tool of the registry: its wire shape, the schema its
// arguments follow, a constructor of its argument struct, what it runs,
// and the key that tells a repeated call.
type entry struct {
	tool    schemas.Tool
	schema  *jsonschema.Schema
	newArgs func() any
	// withSQL returns the argument struct holding sql when the tool
	// takes exactly one argument, sql (the fast path of soleargs.go);
	// nil for the other tools.
	withSQL func(sql string) any
	run     func(ctx context.Context, r *Runner, t Target, args any) (Result, error)
	// key returns prefix followed by what tells the arguments of one
	// call from another's; keyPrefix (the name and a NUL) is the prefix
	// Invocation.Key gives it, made once.
	key       func(prefix string, args any) string
	keyPrefix string
	// prompt is the tool's line in the hermes prompt's list of tools.
	prompt string
}

// registry is every tool in its fixed order, reflected once on first use
// and never changed afterwards. The first three are protocol v1's
// default set.
var registry = sync.OnceValue(buildRegistry)

func buildRegistry() []*entry {
	return []*entry{
		inspectSchemaEntry(), executeSQLEntry(), submitEntry(), searchValuesEntry(), describeColumnEntry(),
	}
}

func inspectSchemaEntry() *entry {
	e := newEntry(schemas.ToolInspectSchema,
		"Show the database schema. Without a table: every table with its columns and types. "+
			"With a table: its columns, types, primary key, foreign keys and a few sample rows.",
		func() any { return &InspectSchemaArgs{} }, jsonKey)
	e.run = func(ctx context.Context, r *Runner, t Target, args any) (Result, error) {
		return r.InspectWith(ctx, t.DB, t.Dialect, t.notes(), args.(*InspectSchemaArgs))
	}
	e.prompt = `inspect_schema {"table": string, optional}: without a table, every table with its columns and types; with a table, its columns, keys, foreign keys and a few sample rows.`
	return e
}

func executeSQLEntry() *entry {
	e := newEntry(schemas.ToolExecuteSQL,
		"Run one read-only SQL statement against the database and see the first rows of its result, "+
			"or the database's error message. Use it to explore the data and to test queries; it does not end the episode.",
		func() any { return &ExecuteSQLArgs{} }, func(p string, a any) string { return sqltext.NormalizeAfter(p, a.(*ExecuteSQLArgs).SQL) })
	e.withSQL = func(sql string) any { return &ExecuteSQLArgs{SQL: sql} }
	e.run = func(ctx context.Context, r *Runner, t Target, args any) (Result, error) {
		return r.Execute(ctx, t.DB, args.(*ExecuteSQLArgs))
	}
	e.prompt = `execute_sql {"sql": string}: runs one statement and shows the first rows of its result, or the error.`
	return e
}

func submitEntry() *entry {
	e := newEntry(schemas.ToolSubmit,
		"Submit the final answer: one SQL query whose result answers the question. "+
			"It is run and compared with the expected answer, and the episode ends.",
		func() any { return &SubmitArgs{} }, func(p string, a any) string { return sqltext.NormalizeAfter(p, a.(*SubmitArgs).SQL) })
	e.withSQL = func(sql string) any { return &SubmitArgs{SQL: sql} }
	e.run = func(_ context.Context, _ *Runner, _ Target, args any) (Result, error) {
		sql := args.(*SubmitArgs).SQL
		return Result{Submitted: &sql}, nil
	}
	e.prompt = `submit {"sql": string}: submits your final query and ends the episode.`
	return e
}

func searchValuesEntry() *entry {
	e := newEntry(schemas.ToolSearchValues,
		"Find where a value named in the question is stored: the best-matching text values of the database "+
			"(ranked by BM25, tolerant of case, accents and small typos) with their table and column, "+
			"spelled exactly as stored. Narrow it to a table or a column when you know it.",
		func() any { return &SearchValuesArgs{} }, jsonKey)
	e.run = func(ctx context.Context, r *Runner, t Target, args any) (Result, error) {
		return r.SearchValues(ctx, t, args.(*SearchValuesArgs))
	}
	e.prompt = `search_values {"query": string, "table": string, optional, "column": string, optional, "limit": integer, optional}: finds the stored values that best match a phrase, with their table and column, spelled as stored.`
	return e
}

func describeColumnEntry() *entry {
	e := newEntry(schemas.ToolDescribeColumn,
		"Profile one column: its declared type and the types actually stored, the row count, the share of NULLs, "+
			"the distinct count, min and max, the most frequent values with their counts, and a few sample values.",
		func() any { return &DescribeColumnArgs{} }, jsonKey)
	e.run = func(ctx context.Context, r *Runner, t Target, args any) (Result, error) {
		return r.DescribeColumn(ctx, t.DB, t.Dialect, args.(*DescribeColumnArgs))
	}
	e.prompt = `describe_column {"table": string, "column": string}: the column's types, row count, NULL share, distinct count, min and max, most frequent values and a few samples.`
	return e
}

func newEntry(name, description string, newArgs func() any, key func(string, any) string) *entry {
	r := &jsonschema.Reflector{DoNotReference: true, Anonymous: true}
	s := r.Reflect(newArgs())
	s.Version = ""
	params, err := json.Marshal(s)
	if err != nil {
		// The argument structs are fixed at compile time; a schema that
		// does not marshal is a programming error caught by every test.
		panic(fmt.Sprintf("tools: marshal schema of %s: %v", name, err))
	}
	return &entry{
		tool: schemas.Tool{Type: "function", Function: schemas.ToolFunction{
			Name: name, Description: description, Parameters: params,
		}},
		schema: s, newArgs: newArgs, key: key, keyPrefix: name + "\x00",
	}
}

// jsonKey is the repeat key of arguments with no SQL: their JSON, after
// prefix.
func jsonKey(prefix string, args any) string {
	b, _ := json.Marshal(args) // argument structs of strings and ints always marshal
	return prefix + string(b)
}

func (e *entry) name() string { return e.tool.Function.Name }

// definition returns the tool's wire shape; the caller owns it.
func (e *entry) definition() schemas.Tool {
	t := e.tool
	t.Function.Parameters = append(json.RawMessage(nil), e.tool.Function.Parameters...)
	return t
}

// lookup returns the registered tool of that name.
func lookup(name string) (*entry, bool) {
	for _, e := range registry() {
		if e.name() == name {
			return e, true
		}
	}
	return nil, false
}

// Definitions returns protocol v1's default tools (inspect_schema,
// execute_sql, submit) in the OpenAI function-calling shape, ready for a
// chat template's tools= argument. The caller owns the returned slice.
func Definitions() []schemas.Tool { return DefaultSet().Definitions() }

// Names returns the name of every registered tool, in the registry's
// fixed order.
func Names() []string {
	var out []string
	for _, e := range registry() {
		out = append(out, e.name())
	}
	return out
}

// DefaultNames are protocol v1's default tools, as --tools defaults to.
func DefaultNames() []string {
	return []string{schemas.ToolInspectSchema, schemas.ToolExecuteSQL, schemas.ToolSubmit}
}

// blank reports whether s holds only white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }
