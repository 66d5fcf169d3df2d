package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/env"
)

// InspectSchemaArgs are the arguments of inspect_schema.
type InspectSchemaArgs struct {
	Table string `json:"table,omitempty" jsonschema_description:"The name of one table to describe in full (columns, keys, foreign keys, sample rows). Leave it out to list every table with its columns."`
}

// ExecuteSQLArgs are the arguments of execute_sql.
type ExecuteSQLArgs struct {
	SQL string `json:"sql" jsonschema:"minLength=1" jsonschema_description:"One read-only SQL statement (SELECT or WITH ... SELECT)."`
}

// SubmitArgs are the arguments of submit.
type SubmitArgs struct {
	SQL string `json:"sql" jsonschema:"minLength=1" jsonschema_description:"The final SQL query; its result is the answer to the question."`
}

// SearchValuesArgs are the arguments of search_values.
type SearchValuesArgs struct {
	Query  string `json:"query" jsonschema:"minLength=1,maxLength=1000" jsonschema_description:"The value to look for as the question words it (a name, a place, a title), at most 1000 characters; case, accents and small typos do not matter."`
	Table  string `json:"table,omitempty" jsonschema_description:"Only values of this table."`
	Column string `json:"column,omitempty" jsonschema_description:"Only values of this column (of any table, or of the table given)."`
	Limit  *int   `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50" jsonschema_description:"How many matches to show, from 1 to 50; left out means 5."`
}

// DescribeColumnArgs are the arguments of describe_column.
type DescribeColumnArgs struct {
	Table  string `json:"table" jsonschema:"minLength=1" jsonschema_description:"The table of the column."`
	Column string `json:"column" jsonschema:"minLength=1" jsonschema_description:"The column to profile."`
}

// Bounds of SearchValuesArgs.Limit.
const (
	DefaultSearchLimit = 5
	MaxSearchLimit     = 50
)

// problem says what is wrong with decoded arguments that fit their
// schema's types but not its bounds; "" when nothing is.
type problem interface{ problem() string }

func (a *ExecuteSQLArgs) problem() string { return emptySQL(a.SQL) }

func (a *SubmitArgs) problem() string { return emptySQL(a.SQL) }

func (a *SearchValuesArgs) problem() string {
	switch {
	case blank(a.Query):
		return `the argument "query" is empty; give the value to look for`
	case utf8.RuneCountInString(a.Query) > env.MaxValueQueryChars:
		return fmt.Sprintf(`the argument "query" is %d characters long, more than the %d allowed; give only the value to look for`,
			utf8.RuneCountInString(a.Query), env.MaxValueQueryChars)
	case a.Limit != nil && (*a.Limit < 1 || *a.Limit > MaxSearchLimit):
		return fmt.Sprintf(`the argument "limit" must be between 1 and %d, got %d`, MaxSearchLimit, *a.Limit)
	}
	return ""
}

func (a *DescribeColumnArgs) problem() string {
	switch {
	case blank(a.Table):
		return `the argument "table" is empty; give the table of the column`
	case blank(a.Column):
		return `the argument "column" is empty; give the column to profile`
	case strings.ContainsRune(a.Table, 0):
		return nulMessage("table")
	case strings.ContainsRune(a.Column, 0):
		return nulMessage("column")
	}
	return ""
}

// nulMessage refuses a name holding a NUL character, which no engine
// takes in an identifier (SQLite and PostgreSQL fail to parse it).
func nulMessage(arg string) string {
	return fmt.Sprintf(`the argument %q contains a NUL character; no %s name holds one`, arg, arg)
}
