package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestNewSet(t *testing.T) {
	tests := []struct {
		names   []string
		want    []string
		problem string
	}{
		{[]string{"search_values", "execute_sql"}, []string{"execute_sql", "submit", "search_values"}, ""},
		{[]string{"submit"}, []string{"submit"}, ""},
		{[]string{" describe_column", "submit"}, []string{"submit", "describe_column"}, ""},
		{nil, nil, "no tool named"},
		{[]string{"bogus"}, nil, `unknown tool "bogus"; the tools are inspect_schema, execute_sql, submit, search_values, describe_column`},
		{[]string{"execute_sql", "execute_sql"}, nil, `tool "execute_sql" is named twice`},
	}
	for _, tt := range tests {
		s, err := NewSet(tt.names)
		switch {
		case tt.problem != "":
			if err == nil || !strings.Contains(err.Error(), tt.problem) {
				t.Errorf("NewSet(%q) error %v, want %q", tt.names, err, tt.problem)
			}
		case err != nil:
			t.Errorf("NewSet(%q): %v", tt.names, err)
		case !slices.Equal(s.Names(), tt.want):
			t.Errorf("NewSet(%q) = %q, want %q", tt.names, s.Names(), tt.want)
		}
	}
}

func TestSubsetOfSubset(t *testing.T) {
	ds, err := NewSet([]string{"execute_sql", "search_values"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Subset([]string{"inspect_schema"}); err == nil || !strings.Contains(err.Error(), "the tools are execute_sql, submit, search_values") {
		t.Errorf("Subset beyond the set: %v", err)
	}
	if !(Set{}).IsDefault() || !DefaultSet().IsDefault() || ds.IsDefault() {
		t.Error("IsDefault is wrong")
	}
	if got := Recorded(nil).Names(); !slices.Equal(got, DefaultNames()) {
		t.Errorf("Recorded(nil) = %q, want the default", got)
	}
	if got := Recorded([]string{"submit", "search_values"}).Names(); !slices.Equal(got, []string{"submit", "search_values"}) {
		t.Errorf("Recorded = %q", got)
	}
}

// TestSetDecode decodes calls against an episode's set: a tool not
// offered is unknown, the new tools' bounds are checked, and repeat keys
// tell calls apart.
func TestSetDecode(t *testing.T) {
	set, err := NewSet([]string{"search_values", "describe_column"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, args string
		code, says       string
	}{
		{"not offered", "execute_sql", `{"sql":"SELECT 1"}`, schemas.ErrCodeUnknownTool, "the tools are submit, search_values, describe_column"},
		{"empty query", "search_values", `{"query":"  "}`, schemas.ErrCodeArguments, `"query" is empty`},
		{"limit too big", "search_values", `{"query":"x","limit":51}`, schemas.ErrCodeArguments, `"limit" must be between 1 and 50, got 51`},
		{"limit not integer", "search_values", `{"query":"x","limit":2.5}`, schemas.ErrCodeArguments, `"limit" must be an integer, not number`},
		{"limit a string", "search_values", `{"query":"x","limit":"3"}`, schemas.ErrCodeArguments, `"limit" must be an integer, not string`},
		{"unknown field", "search_values", `{"query":"x","db":"y"}`, schemas.ErrCodeArguments, `does not take the argument "db"`},
		{"no column", "describe_column", `{"table":"t"}`, schemas.ErrCodeArguments, `needs the argument "column"`},
		{"blank column", "describe_column", `{"table":"t","column":" "}`, schemas.ErrCodeArguments, `"column" is empty`},
		{"NUL in table", "describe_column", `{"table":"patients\u0000","column":"c"}`, schemas.ErrCodeArguments, `"table" contains a NUL character`},
		{"NUL in column", "describe_column", `{"table":"t","column":"a\u0000b"}`, schemas.ErrCodeArguments, `"column" contains a NUL character`},
		{"good search", "search_values", `{"query":"Jane","limit":3,"table":"authors"}`, "", ""},
		{"good describe", "describe_column", `{"table":"t","column":"c"}`, "", ""},
		{"submit always", "submit", `{"sql":"SELECT 1"}`, "", ""},
	}
	for _, tt := range tests {
		inv, te := set.Decode(Call{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
		switch {
		case tt.code == "" && te != nil:
			t.Errorf("%s: %+v", tt.name, te)
		case tt.code == "" && inv.Name() != tt.tool:
			t.Errorf("%s: decoded as %s", tt.name, inv.Name())
		case tt.code != "" && (te == nil || te.Code != tt.code || !strings.Contains(te.Message, tt.says)):
			t.Errorf("%s: %+v, want %s saying %q", tt.name, te, tt.code, tt.says)
		}
	}
	a, _ := set.Decode(Call{Name: "search_values", Arguments: json.RawMessage(`{"query":"Jane"}`)})
	b, _ := set.Decode(Call{Name: "search_values", Arguments: json.RawMessage(`{ "query" : "Jane" }`)})
	c, _ := set.Decode(Call{Name: "search_values", Arguments: json.RawMessage(`{"query":"Jane","limit":9}`)})
	if a.Key() != b.Key() || a.Key() == c.Key() {
		t.Errorf("repeat keys: %q %q %q", a.Key(), b.Key(), c.Key())
	}
	all := AllSet()
	e1, _ := all.Decode(Call{Name: "execute_sql", Arguments: json.RawMessage(`{"sql":"SELECT  a\nFROM t;"}`)})
	e2, _ := all.Decode(Call{Name: "execute_sql", Arguments: json.RawMessage(`{"sql":"select a from t"}`)})
	s1, _ := all.Decode(Call{Name: "submit", Arguments: json.RawMessage(`{"sql":"select a from t"}`)})
	if e1.Key() != "execute_sql\x00select a from t" || e2.Key() != e1.Key() || s1.Key() != "submit\x00select a from t" {
		t.Errorf("SQL repeat keys: %q %q %q", e1.Key(), e2.Key(), s1.Key())
	}
	if !strings.HasPrefix(a.Key(), "search_values\x00{") {
		t.Errorf("search_values repeat key %q does not start with its name", a.Key())
	}
}

func TestAllDefinitionsShape(t *testing.T) {
	defs := AllSet().Definitions()
	if got := len(defs); got != 5 {
		t.Fatalf("%d tools, want 5", got)
	}
	out, err := json.MarshalIndent(defs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "definitions_all.json", string(out)+"\n")
	for _, d := range defs {
		compileParams(t, d) // every parameters schema compiles
	}
}

func TestPromptFollowsTools(t *testing.T) {
	task := &env.Task{Question: "How many singers are from France?"}
	set, err := NewSet([]string{"search_values", "describe_column", "execute_sql"})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "prompt_hermes_tools", PromptTools(task, env.SQLite, schemas.FormatHermes, 8, set)[0].Content+"\n")
	only, _ := NewSet([]string{"submit"})
	sys := PromptTools(task, env.SQLite, schemas.FormatHermes, 8, only)[0].Content
	if strings.Contains(sys, "execute_sql") || strings.Contains(sys, "inspect_schema") || !strings.Contains(sys, `"name": "submit"`) {
		t.Errorf("submit-only prompt names other tools:\n%s", sys)
	}
	if tags := PromptTools(task, env.SQLite, schemas.FormatTags, 8, only)[0].Content; strings.Contains(tags, "<sql>") {
		t.Errorf("tags prompt without execute_sql offers <sql>:\n%s", tags)
	}
}

// TestSharedDefinitions checks that a set's shared definitions are its
// definitions, built once: two calls, even concurrent ones, get the same
// slice.
func TestSharedDefinitions(t *testing.T) {
	sub, err := AllSet().Subset([]string{schemas.ToolExecuteSQL})
	if err != nil {
		t.Fatal(err)
	}
	for name, set := range map[string]Set{"zero": {}, "default": DefaultSet(), "all": AllSet(), "subset": sub} {
		got := make([][]schemas.Tool, 4)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() { got[i] = set.SharedDefinitions() })
		}
		wg.Wait()
		want, _ := json.Marshal(set.Definitions())
		for i, defs := range got {
			if b, _ := json.Marshal(defs); string(b) != string(want) {
				t.Errorf("%s: shared definitions %s, want %s", name, b, want)
			}
			if &defs[0] != &got[0][0] {
				t.Errorf("%s: call %d built its own definitions", name, i)
			}
		}
	}
}
