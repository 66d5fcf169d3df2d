package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestDefinitionsGolden(t *testing.T) {
	out, err := json.MarshalIndent(Definitions(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "definitions.json", string(out)+"\n")
}

func TestDefinitionsShape(t *testing.T) {
	defs := Definitions()
	want := []string{schemas.ToolInspectSchema, schemas.ToolExecuteSQL, schemas.ToolSubmit}
	if len(defs) != len(want) {
		t.Fatalf("len = %d, want %d", len(defs), len(want))
	}
	for i, d := range defs {
		if d.Type != "function" || d.Function.Name != want[i] || d.Function.Description == "" {
			t.Errorf("tool %d = %s %q (description %q), want function %q with a description",
				i, d.Type, d.Function.Name, d.Function.Description, want[i])
		}
		for _, bad := range []string{`"$ref"`, `"$defs"`, `"$schema"`, `"$id"`} {
			if bytes.Contains(d.Function.Parameters, []byte(bad)) {
				t.Errorf("%s parameters hold %s: %s", d.Function.Name, bad, d.Function.Parameters)
			}
		}
	}
}

func TestDefinitionsReturnsCopy(t *testing.T) {
	a := Definitions()
	a[0].Function.Name = "changed"
	a[1].Function.Parameters[0] = 'X'
	b := Definitions()
	if b[0].Function.Name != schemas.ToolInspectSchema || b[1].Function.Parameters[0] != '{' {
		t.Fatalf("Definitions shares state with its callers: %q %s", b[0].Function.Name, b[1].Function.Parameters)
	}
}

// compileParams compiles a tool's parameters schema.
func compileParams(t *testing.T, tool schemas.Tool) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.Function.Parameters))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "mem://" + tool.Function.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s parameters: %v", tool.Function.Name, err)
	}
	return s
}

func TestDefinitionsValidate(t *testing.T) {
	tests := []struct {
		tool, args string
		ok         bool
	}{
		{schemas.ToolInspectSchema, `{}`, true},
		{schemas.ToolInspectSchema, `{"table": "singer"}`, true},
		{schemas.ToolInspectSchema, `{"table": 3}`, false},
		{schemas.ToolInspectSchema, `{"name": "singer"}`, false},
		{schemas.ToolExecuteSQL, `{"sql": "SELECT 1"}`, true},
		{schemas.ToolExecuteSQL, `{}`, false},
		{schemas.ToolExecuteSQL, `{"sql": ""}`, false},
		{schemas.ToolExecuteSQL, `{"sql": 1}`, false},
		{schemas.ToolExecuteSQL, `{"sql": "SELECT 1", "limit": 5}`, false},
		{schemas.ToolExecuteSQL, `"SELECT 1"`, false},
		{schemas.ToolSubmit, `{"sql": "SELECT 1"}`, true},
		{schemas.ToolSubmit, `{"query": "SELECT 1"}`, false},
		{schemas.ToolSubmit, `{"sql": null}`, false},
	}
	compiled := map[string]*jsonschema.Schema{}
	for _, d := range Definitions() {
		compiled[d.Function.Name] = compileParams(t, d)
	}
	for _, tt := range tests {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		err = compiled[tt.tool].Validate(doc)
		if got := err == nil; got != tt.ok {
			t.Errorf("%s %s: valid = %v (%v), want %v", tt.tool, tt.args, got, err, tt.ok)
		}
	}
}

// TestDecodeAgreesWithSchema checks that Decode accepts exactly the
// arguments the published schema accepts.
func TestDecodeAgreesWithSchema(t *testing.T) {
	samples := []string{`{}`, `{"table": "t"}`, `{"table": 1}`, `{"sql": "SELECT 1"}`, `{"sql": ""}`,
		`{"sql": 2}`, `{"sql": "SELECT 1", "x": 1}`, `[]`, `{"table": null}`, `{"sql": "SELECT 1", "table": "t"}`}
	for _, d := range Definitions() {
		s := compileParams(t, d)
		for _, args := range samples {
			doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(args))
			schemaOK := s.Validate(doc) == nil
			_, te := Decode(Call{Name: d.Function.Name, Arguments: json.RawMessage(args)})
			if decodeOK := te == nil; decodeOK != schemaOK {
				t.Errorf("%s %s: Decode ok = %v (%v), schema ok = %v", d.Function.Name, args, decodeOK, te, schemaOK)
			}
		}
	}
}

// TestSearchValuesLimitAgreesWithSchema checks that search_values's
// decoder takes exactly the limits its schema takes: 1 to 50 or none.
func TestSearchValuesLimitAgreesWithSchema(t *testing.T) {
	var def schemas.Tool
	for _, d := range AllSet().Definitions() {
		if d.Function.Name == schemas.ToolSearchValues {
			def = d
		}
	}
	s := compileParams(t, def)
	tests := []struct {
		args string
		ok   bool
	}{
		{`{"query": "x"}`, true},
		{`{"query": "x", "limit": 1}`, true},
		{`{"query": "x", "limit": 50}`, true},
		{`{"query": "x", "limit": 0}`, false},
		{`{"query": "x", "limit": -1}`, false},
		{`{"query": "x", "limit": 51}`, false},
	}
	for _, tt := range tests {
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(tt.args))
		if schemaOK := s.Validate(doc) == nil; schemaOK != tt.ok {
			t.Errorf("%s: schema ok = %v, want %v", tt.args, schemaOK, tt.ok)
		}
		_, te := Decode(Call{Name: schemas.ToolSearchValues, Arguments: json.RawMessage(tt.args)})
		if decodeOK := te == nil; decodeOK != tt.ok {
			t.Errorf("%s: Decode ok = %v (%+v), want %v", tt.args, decodeOK, te, tt.ok)
		}
		if te != nil && (te.Code != schemas.ErrCodeArguments || !strings.Contains(te.Message, `"limit" must be between 1 and 50`)) {
			t.Errorf("%s: %+v, want %s naming the bounds of limit", tt.args, te, schemas.ErrCodeArguments)
		}
	}
}
