package postgres

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// exprKeys are the fields of an EXPLAIN (VERBOSE, FORMAT JSON) plan node
// that hold expressions: where the columns a node reads are named.
var exprKeys = []string{"Output", "Filter", "Index Cond", "Recheck Cond", "Join Filter", "Hash Cond",
	"Merge Cond", "Sort Key", "Group Key", "Presorted Key", "One-Time Filter", "Order By", "TID Cond",
	"Cache Key", "Run Condition"}

// readColumns returns the "table.column" pairs stmt reads and the
// tables it scans, from its plan (see planColumns). A statement that is
// itself an EXPLAIN has no plan of its own to read, and reads no column
// and no table here.
func (c *conn) readColumns(stmt string, lim limits) (cols, tables []string, err error) {
	if sqltext.FirstKeyword(stmt) == "EXPLAIN" {
		return []string{}, []string{}, nil
	}
	pc, err := c.planOf(stmt, lim)
	if err != nil {
		return nil, nil, err
	}
	return pc.sorted(), pc.tables(), nil
}

// planOf reads the plan of stmt, and the column names of its one table
// when the plan names bare columns.
func (c *conn) planOf(stmt string, lim limits) (*planCols, error) {
	unbounded := limits{ceil: lim.ceil}
	rs, err := c.run("EXPLAIN (VERBOSE, FORMAT JSON) "+stmt, nil, unbounded)
	if err != nil {
		return nil, err
	}
	if len(rs.Rows) != 1 || len(rs.Rows[0]) != 1 {
		return nil, fmt.Errorf("explain: %d rows, want 1", len(rs.Rows))
	}
	text, _ := rs.Rows[0][0].(string)
	pc, err := planColumns(text)
	if err != nil || len(pc.bare) == 0 {
		return pc, err
	}
	cols, err := c.run(columnNamesQuery, []any{pc.only.qualified()}, unbounded)
	if err != nil {
		return nil, err
	}
	for _, r := range cols.Rows {
		if name, _ := r[0].(string); pc.bare[name] {
			pc.add(pc.only.name, name)
		}
	}
	return pc, nil
}

// columnNamesQuery lists a table's columns; $1 is its qualified name.
const columnNamesQuery = `SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`

// relation is a table a plan scans.
type relation struct{ schema, name string }

func (r relation) qualified() string { return pgx.Identifier{r.schema, r.name}.Sanitize() }

// planCols are the columns read of a plan: those named alias.column, and
// the bare names of a plan of one table, which may be its columns (a
// plan over one relation writes its output lists without the alias).
type planCols struct {
	seen    map[string]bool
	aliases map[string]relation
	bare    map[string]bool
	only    relation // the one table, when bare is not empty
}

func (pc *planCols) add(table, column string) {
	pc.seen[strings.ToLower(table+"."+column)] = true
}

// tables are the tables the plan scans, in lower case and sorted, leaving
// out PostgreSQL's own catalogs (pg_catalog, information_schema, pg_*).
func (pc *planCols) tables() []string {
	seen := map[string]bool{}
	for _, rel := range pc.aliases {
		if rel.schema != "information_schema" && !strings.HasPrefix(rel.schema, "pg_") {
			seen[strings.ToLower(rel.name)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func (pc *planCols) sorted() []string {
	out := make([]string, 0, len(pc.seen))
	for k := range pc.seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// planNode is a plan node's fields, kept raw.
type planNode map[string]json.RawMessage

// planColumns reads the columns a plan in JSON reads. In a verbose plan
// a column is written alias.column, and each scan node gives its alias's
// table. A scan node's own output list may be the table's whole row (a
// scan hands up its tuples as they are when it can), so it counts only
// when the scan is the plan's top node; the columns its parents use are
// in theirs.
func planColumns(text string) (*planCols, error) {
	pc := &planCols{seen: map[string]bool{}, aliases: map[string]relation{}, bare: map[string]bool{}}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(text), &plans); err != nil {
		return pc, fmt.Errorf("explain: %w", err)
	}
	var exprs []string
	for _, p := range plans {
		walkPlan(p.Plan, true, pc.aliases, &exprs)
	}
	for _, e := range exprs {
		for _, ref := range columnRefs(e) {
			if ref[0] == "" {
				pc.bare[ref[1]] = true
			} else if rel, ok := pc.aliases[ref[0]]; ok {
				pc.add(rel.name, ref[1])
			}
		}
	}
	if len(pc.aliases) != 1 {
		clear(pc.bare)
	}
	for _, rel := range pc.aliases {
		pc.only = rel
	}
	return pc, nil
}

// walkPlan records the alias of each scan of a table and every
// expression, in node and its children.
func walkPlan(node planNode, root bool, aliases map[string]relation, exprs *[]string) {
	var rel relation
	var alias string
	json.Unmarshal(node["Relation Name"], &rel.name)
	json.Unmarshal(node["Schema"], &rel.schema)
	json.Unmarshal(node["Alias"], &alias)
	scan := rel.name != ""
	if scan && alias != "" {
		aliases[alias] = rel
	}
	for _, k := range exprKeys {
		raw, ok := node[k]
		if !ok || k == "Output" && scan && !root {
			continue
		}
		var one string
		var many []string
		if json.Unmarshal(raw, &one) == nil {
			*exprs = append(*exprs, one)
		} else if json.Unmarshal(raw, &many) == nil {
			*exprs = append(*exprs, many...)
		}
	}
	var children []planNode
	json.Unmarshal(node["Plans"], &children)
	for _, ch := range children {
		walkPlan(ch, false, aliases, exprs)
	}
}

// columnRefs finds the names alias.column in an expression as
// PostgreSQL deparses it, and the bare names (alias ""): names plain or
// in double quotes; string literals, function names, type names after
// "::" and names of more than two parts left out.
func columnRefs(expr string) [][2]string {
	var refs [][2]string
	var parts []string
	flush := func() {
		switch len(parts) {
		case 1:
			refs = append(refs, [2]string{"", parts[0]})
		case 2:
			refs = append(refs, [2]string{parts[0], parts[1]})
		}
		parts = parts[:0]
	}
	for i := 0; i < len(expr); {
		name, n := identAt(expr, i)
		switch {
		case n > 0:
			parts = append(parts, name)
			i += n
			if i < len(expr) && expr[i] == '.' {
				i++
				continue
			}
			if i < len(expr) && expr[i] == '(' || strings.HasSuffix(expr[:i-n], "::") {
				parts = parts[:0] // a function call, or a type
			}
			flush()
		case expr[i] == '\'':
			flush()
			i = skipString(expr, i+1)
		default:
			flush()
			i++
		}
	}
	flush()
	return refs
}

// identAt reads a name at s[i:]: a plain identifier (a letter or _
// first) or a double-quoted one. It returns the name and its length in
// s, 0 when there is none.
func identAt(s string, i int) (string, int) {
	if s[i] == '"' {
		var b strings.Builder
		for j := i + 1; j < len(s); j++ {
			if s[j] != '"' {
				b.WriteByte(s[j])
				continue
			}
			if j+1 < len(s) && s[j+1] == '"' {
				b.WriteByte('"')
				j++
				continue
			}
			return b.String(), j + 1 - i
		}
		return "", 0
	}
	if !isIdentStart(s[i]) || i > 0 && isIdentByte(s[i-1]) {
		return "", 0
	}
	j := i
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	return s[i:j], j - i
}

func isIdentStart(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

func isIdentByte(b byte) bool { return isIdentStart(b) || b >= '0' && b <= '9' || b == '$' }

// skipString returns the index just past the quote that closes the
// string literal starting at i (” stands for a quote).
func skipString(s string, i int) int {
	for i < len(s) {
		if s[i] != '\'' {
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			i += 2
			continue
		}
		return i + 1
	}
	return len(s)
}
