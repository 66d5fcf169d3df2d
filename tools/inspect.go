package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// Inspect runs inspect_schema. Without a table it lists every table with
// its columns and types, one line per table; with a table it shows that
// table's columns, primary key, foreign keys and SampleRows sample rows.
// An unknown table is Result.Error no_such_table, and the observation
// lists the tables there are. Any error that is not a *env.QueryError is
// the server's and is returned.
//
// Of a database that is env.Immutable, the text of each success is kept
// (up to SchemaCacheBytes per database) and shown again to every later
// call, byte for byte what reading the catalog again would show; a burst
// of first calls reads the catalog once. Failures are never kept.
func (r *Runner) Inspect(ctx context.Context, db env.DB, dialect env.Dialect, a *InspectSchemaArgs) (Result, error) {
	return r.InspectWith(ctx, db, dialect, nil, a)
}

// InspectWith is Inspect showing, for a table, what notes (the dataset's
// descriptions of the database, nil for none) say of it and its columns.
func (r *Runner) InspectWith(ctx context.Context, db env.DB, dialect env.Dialect, notes *env.DBNotes, a *InspectSchemaArgs) (Result, error) {
	name := unquoteIdent(strings.TrimSpace(a.Table))
	if name == "" {
		return r.inspectAll(ctx, db, dialect)
	}
	key := foldASCII(name)
	var res Result
	var err error
	text, ran := r.schema.load(ctx, cacheKey{db: db, kind: kindTable, name: key, notes: notes}, func() (string, bool) {
		var t *env.Table
		t, res, err = r.inspectTable(ctx, db, dialect, notes, name)
		// Shared only when SQLite matched the table under this very key
		// (its NOCASE folds ASCII letters only, as foldASCII does).
		return res.Content, t != nil && foldASCII(t.Name) == key && !strings.ContainsRune(t.Name, 0)
	})
	if !ran {
		return Result{Content: text}, nil
	}
	return res, err
}

// inspectAll lists every table; the list's success also keeps the table
// names an unknown table's error shows.
func (r *Runner) inspectAll(ctx context.Context, db env.DB, dialect env.Dialect) (Result, error) {
	var res Result
	var err error
	text, ran := r.schema.load(ctx, cacheKey{db: db, kind: kindList}, func() (string, bool) {
		var tables []env.Table
		if tables, err = db.Tables(ctx); err != nil {
			res, err = r.failure("inspect schema", err)
			return res.Content, false
		}
		res = Result{Content: r.renderTables(tables, dialect)}
		r.schema.keep(cacheKey{db: db, kind: kindNames}, r.tableNames(tables, dialect))
		return res.Content, true
	})
	if !ran {
		return Result{Content: text}, nil
	}
	return res, err
}

// inspectTable describes one table, uncached; t is nil on failure.
func (r *Runner) inspectTable(ctx context.Context, db env.DB, dialect env.Dialect, notes *env.DBNotes, name string) (*env.Table, Result, error) {
	t, err := db.Describe(ctx, name, r.cfg.SampleRows)
	if err != nil {
		res, ferr := r.failure("inspect table", err)
		if ferr == nil && errors.Is(err, env.ErrNoSuchTable) {
			res.Content = r.withTableNames(ctx, db, dialect, res.Content)
		}
		return nil, res, ferr
	}
	return t, Result{Content: r.renderTable(t, dialect, notes.Table(t.Name))}, nil
}

// withTableNames adds the list of tables to an error's content, when the
// database can list them.
func (r *Runner) withTableNames(ctx context.Context, db env.DB, dialect env.Dialect, content string) string {
	names, _ := r.schema.load(ctx, cacheKey{db: db, kind: kindNames}, func() (string, bool) {
		tables, err := db.Tables(ctx)
		if err != nil {
			return "", false
		}
		return r.tableNames(tables, dialect), true
	})
	if names == "" {
		return content
	}
	return clip(content+"\nThe tables are: "+names, r.budget())
}

// tableNames are the tables' names as the model writes them, joined by
// commas, cut to the budget's length: withTableNames clips the error and
// the list together to the budget, so names past that many bytes never
// show, and keeping them would only take room in the cache.
func (r *Runner) tableNames(tables []env.Table, dialect env.Dialect) string {
	var b strings.Builder
	for i, t := range tables {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(t.Name, dialect))
		if b.Len() > r.budget() {
			break
		}
	}
	return b.String()[:min(b.Len(), r.budget())]
}

// foldASCII lower-cases the ASCII letters of s, as SQLite's NOCASE
// collation compares names; other bytes are left as they are.
func foldASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// renderTables lists tables as "name(col TYPE, ...)", one per line, within
// the budget; the last line says when tables were left out.
func (r *Runner) renderTables(tables []env.Table, dialect env.Dialect) string {
	if len(tables) == 0 {
		return "The database has no tables."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tables (call inspect_schema with a table name for its keys and sample rows):\n", len(tables))
	budget := r.budget() - 96
	for i, t := range tables {
		line := quoteIdent(t.Name, dialect) + "(" + columnList(t.Columns, dialect) + ")\n"
		if b.Len()+len(line) > budget {
			fmt.Fprintf(&b, "(%d more tables not shown: output cut at %d bytes; inspect a table by name to see it)",
				len(tables)-i, r.cfg.ObservationBytes)
			return clip(b.String(), r.budget())
		}
		b.WriteString(line)
	}
	return clip(strings.TrimSuffix(b.String(), "\n"), r.budget())
}

func columnList(cols []env.Column, dialect env.Dialect) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = strings.TrimSpace(quoteIdent(c.Name, dialect) + " " + c.Type)
	}
	return strings.Join(parts, ", ")
}

// renderTable describes one table: its columns (with what notes say of
// them, when the dataset ships descriptions), keys and sample rows.
func (r *Runner) renderTable(t *env.Table, dialect env.Dialect, notes *env.TableNotes) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Table %s\n", quoteIdent(t.Name, dialect))
	if notes != nil && notes.Description != "" {
		b.WriteString("Description: " + notes.Description + "\n")
	}
	b.WriteString("Columns:\n")
	for _, c := range t.Columns {
		line := strings.TrimSpace(quoteIdent(c.Name, dialect) + " " + c.Type)
		if c.NotNull {
			line += " NOT NULL"
		}
		if notes != nil {
			line += noteText(notes.Columns[strings.ToLower(c.Name)], c.Type)
		}
		b.WriteString("  " + line + "\n")
	}
	if len(t.PrimaryKey) > 0 {
		b.WriteString("Primary key: " + identList(t.PrimaryKey, dialect) + "\n")
	}
	if len(t.ForeignKeys) > 0 {
		b.WriteString("Foreign keys:\n")
		for _, fk := range t.ForeignKeys {
			fmt.Fprintf(&b, "  (%s) -> %s(%s)\n", identList(fk.Columns, dialect),
				quoteIdent(fk.RefTable, dialect), identList(fk.RefColumns, dialect))
		}
	}
	b.WriteString(r.renderSamples(t.Samples, r.budget()-b.Len()))
	return clip(strings.TrimSuffix(b.String(), "\n"), r.budget())
}

// renderSamples renders a table's sample rows within budget bytes.
func (r *Runner) renderSamples(rs *env.ResultSet, budget int) string {
	if rs == nil || len(rs.Columns) == 0 {
		return ""
	}
	if len(rs.Rows) == 0 {
		return "Sample rows: none (the table is empty)."
	}
	n := min(len(rs.Rows), r.cfg.SampleRows)
	var lines strings.Builder
	fit := r.grid(&lines, rs, n, budget-24, 0)
	if fit == 0 {
		return ""
	}
	return fmt.Sprintf("Sample rows (%d):\n", fit) + lines.String()
}

func identList(names []string, dialect env.Dialect) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteIdent(n, dialect)
	}
	return strings.Join(out, ", ")
}

// quoteIdent writes name as the model must write it in SQL: as it is when
// it is a plain identifier that is not one of the dialect's keywords
// (keywords.go), in double quotes with inner quotes doubled otherwise. In
// PostgreSQL, which folds a bare name to lower case, a name with
// upper-case letters needs the quotes too; SQLite compares names without
// regard to ASCII case, so there it does not, nor in MySQL, which keeps
// a bare name's case (and whose sessions read double quotes as quoting
// a name: ANSI_QUOTES).
func quoteIdent(name string, dialect env.Dialect) string {
	if plainIdent(name, dialect) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// unquoteIdent is the name s writes when s is a name in double quotes, as
// quoteIdent shows one (inner quotes doubled); otherwise s itself, so
// that a table is found by the name shown or by the name it has.
func unquoteIdent(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	inner := s[1 : len(s)-1]
	if inner == "" || strings.Count(inner, `"`) != 2*strings.Count(inner, `""`) {
		return s
	}
	return strings.ReplaceAll(inner, `""`, `"`)
}

// plainIdent reports whether name runs bare as an identifier in dialect.
func plainIdent(name string, dialect env.Dialect) bool {
	plain := name != ""
	for i, c := range name {
		switch {
		case c == '_' || c >= 'a' && c <= 'z':
		case c >= 'A' && c <= 'Z':
			plain = plain && dialect != env.Postgres
		case c >= '0' && c <= '9':
			plain = plain && i > 0
		default:
			plain = false
		}
	}
	if !plain {
		return false
	}
	switch dialect {
	case env.Postgres:
		return !pgReserved[name]
	case env.MySQL:
		return !mysqlReserved[foldASCII(name)]
	}
	return !sqliteKeywords[foldASCII(name)]
}
