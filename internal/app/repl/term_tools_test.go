package repl

import "testing"

// TestTerminalToolNotOffered runs sqlgym repl at a terminal: .search and
// .describe on a server that has not enabled search_values and
// describe_column, and .search and .schema in an episode that does not
// offer them, spend no turn and say how to get the tool.
func TestTerminalToolNotOffered(t *testing.T) {
	t.Run("the server has not enabled them", func(t *testing.T) {
		p := startRepl(t, 120, nil, "NO_COLOR=1")
		p.expect("sqlgym> ")
		p.line(".reset demo/library-001", "library[0/8]> ")
		got := p.command(".search Austen", "library[0/8]> ")
		checkOutput(t, got, []string{"the server has not enabled search_values (it offers inspect_schema, execute_sql, submit): nothing was sent, no turn spent",
			"--tools inspect_schema,execute_sql,search_values"}, []string{"reward", "format_error"})
		got = p.command(".describe books.title", "library[0/8]> ")
		checkOutput(t, got, []string{"the server has not enabled describe_column", "--tools inspect_schema,execute_sql,describe_column"},
			[]string{"reward", "format_error"})
		p.line("SELECT 1 AS one;", "library[1/8]> ") // the first turn is still there to spend
		p.send(".quit" + enter)
		p.exit()
	})
	t.Run("the episode does not offer them", func(t *testing.T) {
		p := startRepl(t, 120, []string{"--tools", "inspect_schema,execute_sql,search_values"}, "NO_COLOR=1")
		p.expect("sqlgym> ")
		p.line(".reset demo/library-001 --tools execute_sql", "library[0/8]> ")
		got := p.command(".search Austen", "library[0/8]> ")
		checkOutput(t, got, []string{"this episode does not offer search_values (it offers execute_sql, submit): nothing was sent, no turn spent",
			".reset demo/library-001 --tools execute_sql,search_values starts one that does"}, []string{"reward"})
		got = p.command(".schema", "library[0/8]> ")
		checkOutput(t, got, []string{"this episode does not offer inspect_schema"}, []string{"reward"})
		p.line(".reset demo/library-001 --tools execute_sql,search_values", "library[0/8]> ")
		got = p.line(".search Austen", "library[1/8]> ")
		checkOutput(t, got, []string{"Jane Austen", "reward 0"}, nil)
		p.send(".quit" + enter)
		p.exit()
	})
}
