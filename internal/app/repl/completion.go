package repl

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/peterh/liner"
)

// tablesTimeout bounds reading a database's tables for Tab.
const tablesTimeout = 2 * time.Second

// names are the tables and columns Tab completes: of the current
// episode's database, read through Local with the REPL's own server, or
// asked of a server elsewhere (tasks.schema); at a server that does not
// answer tasks.schema, gathered from what inspect_schema showed.
type names struct {
	db     string              // the task's dataset/db_id they are of
	tables map[string][]string // table (as the database spells it) -> its columns
	read   bool                // read whole, through Local or tasks.schema
}

// completer is the REPL's Tab completion, as liner calls it.
func (s *session) completer(ctx context.Context) liner.WordCompleter {
	return func(line string, pos int) (string, []string, string) { return s.completions(ctx, line, pos) }
}

// completions completes the word before the cursor (pos counts runes):
// a dot command's name, its arguments (tables, columns, on/off), or in
// SQL a keyword, a table, a column, or TABLE.column.
func (s *session) completions(ctx context.Context, line string, pos int) (head string, items []string, tail string) {
	r := []rune(line)
	pos = min(max(pos, 0), len(r))
	start := pos
	for start > 0 && isNameRune(r[start-1]) {
		start--
	}
	head, word, tail := string(r[:start]), string(r[start:pos]), string(r[pos:])
	fields := strings.Fields(head)
	switch {
	case len(fields) == 0 && strings.HasPrefix(word, "."):
		items = withPrefix(commandNames(), word, false)
	case len(fields) > 0 && strings.HasPrefix(fields[0], ".") && fields[0] != ".peek" && fields[0] != ".submit":
		items = s.argCompletions(ctx, fields, word)
	default:
		items = s.sqlCompletions(ctx, fields, word)
	}
	return head, items, tail
}

// isNameRune says whether r may be part of a word Tab completes.
func isNameRune(r rune) bool {
	return r == '_' || r == '.' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// argCompletions completes an argument of a dot command.
func (s *session) argCompletions(ctx context.Context, fields []string, word string) []string {
	switch cmd, n := fields[0], len(fields); {
	case cmd == ".schema" && n == 1, cmd == ".describe" && n == 1 && !strings.Contains(word, "."):
		return withPrefix(s.tableList(ctx), word, false)
	case cmd == ".describe" && n == 1:
		return s.qualifiedColumns(ctx, word)
	case cmd == ".describe" && n == 2:
		return withPrefix(s.columnsOf(ctx, fields[1]), word, false)
	case cmd == ".pager" && n == 1:
		return withPrefix([]string{"on", "off"}, word, false)
	case cmd == ".vertical" && n == 1:
		return withPrefix([]string{verticalOn, verticalOff, verticalAuto}, word, false)
	case cmd == ".reset":
		var opts []string
		for _, d := range s.info.Datasets {
			opts = append(opts, d.Name)
		}
		return withPrefix(append(opts, "--seed", "--format", "--tools"), word, false)
	}
	return nil
}

// afterTable are the keywords a table name follows.
var afterTable = []string{"from", "join", "into", "update", "table"}

// sqlCompletions completes a word of SQL: TABLE.column after a dot;
// else a table, a column or a keyword, in the letter case typed; a
// table after FROM or JOIN even before any letter is typed.
func (s *session) sqlCompletions(ctx context.Context, fields []string, word string) []string {
	if strings.Contains(word, ".") {
		return s.qualifiedColumns(ctx, word)
	}
	tables := withPrefix(s.tableList(ctx), word, false)
	if len(fields) > 0 && slices.Contains(afterTable, strings.ToLower(fields[len(fields)-1])) {
		return tables
	}
	if word == "" {
		return nil
	}
	var cols []string
	for _, c := range s.tableNames(ctx).tables {
		cols = append(cols, c...)
	}
	lower := strings.ToLower(word) == word
	items := append(tables, withPrefix(cols, word, false)...)
	items = append(items, withPrefix(sqlKeywords, word, lower)...)
	slices.Sort(items)
	return slices.Compact(items)
}

// qualifiedColumns completes TABLE.col with the table's columns.
func (s *session) qualifiedColumns(ctx context.Context, word string) []string {
	i := strings.LastIndex(word, ".")
	var out []string
	for _, c := range withPrefix(s.columnsOf(ctx, word[:i]), word[i+1:], false) {
		out = append(out, word[:i+1]+c)
	}
	return out
}

// withPrefix returns the items that start with prefix, whatever the
// letter case, sorted; lower makes them lower case.
func withPrefix(items []string, prefix string, lower bool) []string {
	var out []string
	for _, it := range items {
		if strings.HasPrefix(strings.ToLower(it), strings.ToLower(prefix)) {
			if lower {
				it = strings.ToLower(it)
			}
			out = append(out, it)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// commandNames are the dot commands' names, \x aside.
func commandNames() []string {
	out := []string{".quit"}
	for _, c := range commands {
		out = append(out, c.name)
	}
	return out
}

// tableList is the current database's tables.
func (s *session) tableList(ctx context.Context) []string {
	var out []string
	for t := range s.tableNames(ctx).tables {
		out = append(out, t)
	}
	return out
}

// columnsOf is the columns of table (its name in any letter case).
func (s *session) columnsOf(ctx context.Context, table string) []string {
	for t, cols := range s.tableNames(ctx).tables {
		if strings.EqualFold(t, table) {
			return cols
		}
	}
	return nil
}

// tableNames returns the current episode's database's tables and
// columns, reading them the first time they are asked for: through Local
// with the REPL's own server, else from the server elsewhere
// (tasks.schema).
func (s *session) tableNames(ctx context.Context) *names {
	if s.ep == nil {
		return &names{}
	}
	s.names.reset(s.ep.reset.Task.TaskID, s.ep.reset.Task.DBID)
	if s.names.read || s.local == nil && (s.noSchema || s.lost) {
		return &s.names
	}
	tctx, cancel := context.WithTimeout(ctx, tablesTimeout)
	defer cancel()
	tables, err := s.readTables(tctx, s.ep.reset.Task.TaskID)
	if err != nil {
		return &s.names // Tab completes what it can; the next Tab tries again
	}
	for _, t := range tables {
		s.names.tables[t.Name] = t.Columns
	}
	s.names.read = true
	return &s.names
}

// reset empties n when it holds another database's names.
func (n *names) reset(taskID, dbID string) {
	dataset, _, _ := strings.Cut(taskID, "/")
	if db := dataset + "/" + dbID; n.db != db || n.tables == nil {
		*n = names{db: db, tables: map[string][]string{}}
	}
}

// The lines of inspect_schema's text that name tables and columns: the
// listing's "table(col TYPE, ...)", or one table's "Table t" followed by
// its "Columns:", one "  col TYPE" a line.
var (
	listedTable = regexp.MustCompile(`^\s*([\p{L}_][\p{L}\p{N}_$]*)\((.*)\)\s*$`)
	oneTable    = regexp.MustCompile(`^\s*Table ([\p{L}_][\p{L}\p{N}_$]*)\s*$`)
	columnLine  = regexp.MustCompile(`^\s+([\p{L}_][\p{L}\p{N}_$]*)\s`)
)

// learn gathers the tables and columns an inspect_schema observation of
// the current episode shows, for Tab at a server elsewhere.
func (s *session) learn(observation string) {
	if s.ep == nil {
		return
	}
	s.names.reset(s.ep.reset.Task.TaskID, s.ep.reset.Task.DBID)
	if s.names.read {
		return // the database's own list is whole
	}
	table, columns := "", -1 // columns: the indent of the "Columns:" line, while its lines run
	for _, line := range strings.Split(observation, "\n") {
		if m := listedTable.FindStringSubmatch(line); m != nil {
			var cols []string
			for _, c := range strings.Split(m[2], ",") {
				if f := strings.Fields(c); len(f) > 0 {
					cols = append(cols, f[0])
				}
			}
			s.names.tables[m[1]] = cols
			continue
		}
		if m := oneTable.FindStringSubmatch(line); m != nil {
			table, columns = m[1], -1
			s.names.tables[table] = nil
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		switch m := columnLine.FindStringSubmatch(line); {
		case strings.TrimSpace(line) == "Columns:" && table != "":
			columns = indent
		case columns >= 0 && m != nil && indent > columns:
			s.names.tables[table] = append(s.names.tables[table], m[1])
		default:
			columns = -1
		}
	}
}
