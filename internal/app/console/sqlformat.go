package console

import (
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// span is a piece of highlighted SQL: its text and the class that
// colours it ("" for plain text). The template escapes Text.
type span struct {
	Class, Text string
}

// clauses start a new line when SQL is pretty-printed.
var clauses = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "GROUP": true, "ORDER": true, "HAVING": true,
	"LIMIT": true, "UNION": true, "INTERSECT": true, "EXCEPT": true, "JOIN": true, "LEFT": true,
	"INNER": true, "OUTER": true,
}

// keywords are coloured as keywords.
var keywords = map[string]bool{
	"AS": true, "BY": true, "DISTINCT": true, "COUNT": true, "AVG": true, "SUM": true, "MIN": true, "MAX": true,
	"IN": true, "NOT": true, "LIKE": true, "BETWEEN": true, "IS": true, "NULL": true, "DESC": true, "ASC": true,
	"CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true, "ON": true, "AND": true, "OR": true,
	"WITH": true, "CAST": true, "EXISTS": true, "ALL": true,
}

// prettySQL splits sql into highlighted spans, with a line break before
// each clause keyword at the top level; the text is otherwise the
// model's, white space folded.
func prettySQL(sql string) []span {
	var out []span
	depth := 0
	for _, t := range sqltext.Tokens(strings.TrimSpace(sql)) {
		switch t.Kind {
		case sqltext.Space:
			out = append(out, span{Text: " "})
		case sqltext.Comment:
			out = append(out, span{"c", t.Text})
		case sqltext.String:
			out = append(out, span{"s", t.Text})
		case sqltext.Number:
			out = append(out, span{"n", t.Text})
		case sqltext.Word:
			up := strings.ToUpper(t.Text)
			if clauses[up] && depth == 0 && len(out) > 0 {
				trimSpace(&out)
				out = append(out, span{Text: "\n"})
			}
			if clauses[up] || keywords[up] {
				out = append(out, span{"k", t.Text})
			} else {
				out = append(out, span{Text: t.Text})
			}
		default:
			depth += strings.Count(t.Text, "(") - strings.Count(t.Text, ")")
			out = append(out, span{Text: t.Text})
		}
	}
	return out
}

// trimSpace drops a trailing space span before a line break.
func trimSpace(out *[]span) {
	if n := len(*out); n > 0 && (*out)[n-1].Class == "" && (*out)[n-1].Text == " " {
		*out = (*out)[:n-1]
	}
}
