package postgres

import (
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
)

// deniedFunctions are functions the reader role may call but a model's
// statement may not: they reach past its own transaction, to other
// sessions (those of the same role included: every episode's), to other
// servers, or run SQL given as text, which the checks before the server
// never see.
var deniedFunctions = map[string]string{
	"pg_terminate_backend":       "it ends other sessions",
	"pg_cancel_backend":          "it cancels other sessions' statements",
	"pg_notify":                  "it signals other sessions",
	"query_to_xml":               "it runs SQL given as text",
	"query_to_xmlschema":         "it runs SQL given as text",
	"query_to_xml_and_xmlschema": "it runs SQL given as text",
	"cursor_to_xml":              "it reads a cursor",
	"cursor_to_xmlschema":        "it reads a cursor",
}

// checkFunctions denies a statement that calls one of deniedFunctions or
// a dblink function, however it is spelled (any case, quoted, or
// qualified with its schema).
func checkFunctions(stmt string) error {
	toks := sqltext.Tokens(stmt)
	for i, t := range toks {
		var name string
		switch t.Kind {
		case sqltext.Word:
			name = strings.ToLower(t.Text)
		case sqltext.Ident:
			name = strings.ReplaceAll(strings.Trim(t.Text, `"`), `""`, `"`)
		default:
			continue
		}
		if !calls(toks[i+1:]) {
			continue
		}
		why, denied := deniedFunctions[name]
		if strings.HasPrefix(name, "dblink") {
			why, denied = "it connects to a server", true
		}
		if denied {
			return env.NewQueryError(env.ErrDenied, "statement denied: "+name+"() may not be called: "+why)
		}
	}
	return nil
}

// calls reports whether the tokens after a name open its arguments.
func calls(rest []sqltext.Token) bool {
	for _, t := range rest {
		if t.Kind == sqltext.Space || t.Kind == sqltext.Comment {
			continue
		}
		return t.Text == "("
	}
	return false
}
