package repl

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/tools"
)

// startToolsServer serves the demo offering every tool, search_values
// reading a real value index.
func startToolsServer(t *testing.T) *testServer {
	t.Helper()
	return startDemo(t, testserver.DemoOptions{
		Engines: func(ec *stack.EngineConfig, dir string) {
			store, err := valueindex.New(valueindex.Config{Dir: filepath.Join(dir, "value-index")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() }) // after the stack has closed
			ec.Runner.Values = store
		},
		Config: func(cfg *episodes.Config, _ string) { cfg.Tools = tools.AllSet() },
	})
}

func TestSearchAndDescribeCommands(t *testing.T) {
	srv := startToolsServer(t)
	tests := []struct {
		name, input string
		want, not   []string
	}{
		{"search", ".reset demo/library-001\n.search jane austin\n",
			[]string{"authors.name = 'Jane Austen' (1 row)", "turn 1/8"}, nil},
		{"search narrowed", ".reset demo/library-001\n.search harogate --table members --column=city --limit 1\n",
			[]string{"1 value matches 'harogate' in members.city:", "members.city = 'Harrogate' (12 rows)"}, nil},
		{"describe", ".reset demo/library-001\n.describe authors country\n.describe authors.birth_year\n",
			[]string{"Column authors.country, declared type TEXT", "Rows: 23; NULL: 1 (4.3%)", "turn 2/8"}, nil},
		{"usage", ".reset demo/library-001\n.describe authors\n.search --limit 3\n",
			[]string{"usage: .describe TABLE COLUMN", "usage: .search PHRASE"}, []string{"turn 1/8"}},
		{"tools of the episode", ".reset demo/library-001 --tools describe_column\n.search jane\n.prompt\n",
			[]string{"this episode does not offer search_values (it offers ", "no turn spent",
				".reset demo/library-001 --tools describe_column,search_values starts one that does", "describe_column {"},
			[]string{"inspect_schema {", "turn 1/8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := pipe(t, srv.url, tt.input, false)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q:\n%s", n, out)
				}
			}
		})
	}
}
