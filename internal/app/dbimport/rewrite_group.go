package dbimport

import (
	"regexp"
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// groupByError is PostgreSQL's refusal of a column that SQLite lets a
// grouped query show without grouping or aggregating it (SQLite takes it
// from some row of the group).
var groupByError = regexp.MustCompile(`^column "([^"]+)" must appear in the GROUP BY clause or be used in an aggregate function`)

// RepairGroupBy answers PostgreSQL's error msg about a column neither
// grouped nor aggregated: it wraps the column's references in the select
// list, HAVING and ORDER BY (outside aggregates) of sql in MIN(), which
// returns SQLite's value wherever the column has one value per group (the
// usual case: a name grouped by its id). It reports false when msg is
// another error or no reference was found.
func RepairGroupBy(sql, msg string) (string, bool) {
	m := groupByError.FindStringSubmatch(msg)
	if m == nil {
		return sql, false
	}
	qual, name, ok := strings.Cut(m[1], ".")
	if !ok {
		qual, name = "", m[1]
	}
	r := &rewriter{toks: sqltext.Tokens(sql), s: &Schema{}, d: pgDialect}
	for i, t := range r.toks {
		if t.Kind != sqltext.Space && t.Kind != sqltext.Comment {
			r.sig = append(r.sig, i)
		}
	}
	refs := r.unaggregated(qual, name)
	if len(refs) == 0 && qual != "" { // PostgreSQL qualifies a bare name
		refs = r.unaggregated("", name)
	}
	wrapped := false
	for _, ref := range refs {
		r.tok(ref[0]).Text = "MIN(" + r.tok(ref[0]).Text
		r.tok(ref[1]).Text += ")"
		wrapped = true
	}
	return r.text(), wrapped
}

// aggregates are the functions whose arguments need no grouping.
var aggregates = map[string]bool{"min": true, "max": true, "count": true, "sum": true, "avg": true, "total": true, "group_concat": true, "string_agg": true}

// scope is one parenthesis level: the clause it is in, and whether it is
// inside an aggregate's arguments.
type scope struct {
	clause string
	agg    bool
}

// unaggregated finds the references qual.name (or name, when qual is "")
// that stand in a select list, HAVING or ORDER BY outside any aggregate;
// each is its first and last significant token.
func (r *rewriter) unaggregated(qual, name string) [][2]int {
	var refs [][2]int
	stack := []scope{{}}
	for k := 0; k < len(r.sig); k++ {
		top := &stack[len(stack)-1]
		w := strings.ToLower(r.tok(k).Text)
		switch {
		case w == "(":
			stack = append(stack, scope{clause: top.clause, agg: top.agg || aggregates[strings.ToLower(r.tok(k-1).Text)]})
		case w == ")" && len(stack) > 1:
			stack = stack[:len(stack)-1]
		case r.tok(k).Kind == sqltext.Word && clauses[w]:
			top.clause = w
		case top.agg || (top.clause != "select" && top.clause != "having" && top.clause != "order"):
		case qual != "" && identName(r.tok(k)) == qual && r.tok(k+1).Text == "." && identName(r.tok(k+2)) == name:
			refs = append(refs, [2]int{k, k + 2})
			k += 2
		case qual == "" && identName(r.tok(k)) == name && r.tok(k-1).Text != "." && r.tok(k+1).Text != "(":
			refs = append(refs, [2]int{k, k})
		}
	}
	return refs
}

// clauses are the words that open a clause.
var clauses = map[string]bool{"select": true, "from": true, "where": true, "group": true, "having": true,
	"order": true, "limit": true, "on": true, "join": true}
