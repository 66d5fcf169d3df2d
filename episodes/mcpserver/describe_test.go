package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestToolsDescribedFully lists the tools: each has a title of its own,
// the hints true to it, and an output schema that compiles as JSON
// Schema 2020-12.
func TestToolsDescribedFully(t *testing.T) {
	h := start(t, options{})
	listed := listTools(t, h.connect(t, ""))
	want := map[string]string{
		mcpserver.ToolListTasks:    "readOnly idempotent",
		mcpserver.ToolStartEpisode: "destructive",
		mcpserver.ToolGetReward:    "readOnly idempotent",
		mcpserver.ToolEndEpisode:   "destructive idempotent",
		schemas.ToolInspectSchema:  "",
		schemas.ToolExecuteSQL:     "",
		schemas.ToolSearchValues:   "",
		schemas.ToolDescribeColumn: "",
		schemas.ToolSubmit:         "destructive",
	}
	if len(listed) != len(want) {
		t.Errorf("%d tools listed, want %d", len(listed), len(want))
	}
	for name, tool := range listed {
		if tool.Title == "" || tool.Title == name || tool.Annotations == nil || tool.Annotations.Title != tool.Title {
			t.Errorf("%s: title %q, annotations %+v: want a title of its own, in both", name, tool.Title, tool.Annotations)
			continue
		}
		if got := hints(tool.Annotations); got != want[name] {
			t.Errorf("%s: hints %q, want %q", name, got, want[name])
		}
		outputSchema(t, tool)
	}
}

// hints names the hints a tool's annotations set, failing on any left to
// its default: "readOnly idempotent".
func hints(a *mcp.ToolAnnotations) string {
	if a.DestructiveHint == nil || a.OpenWorldHint == nil {
		return "destructive or openWorld left to its default"
	}
	var on []string
	for _, h := range []struct {
		name string
		on   bool
	}{{"readOnly", a.ReadOnlyHint}, {"destructive", *a.DestructiveHint}, {"idempotent", a.IdempotentHint}, {"openWorld", *a.OpenWorldHint}} {
		if h.on {
			on = append(on, h.name)
		}
	}
	return strings.Join(on, " ")
}

// listTools lists a session's tools by name.
func listTools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// outputSchema compiles a listed tool's output schema (draft 2020-12).
func outputSchema(t *testing.T, tool *mcp.Tool) *jsv.Schema {
	t.Helper()
	b, err := json.Marshal(tool.OutputSchema)
	if err != nil || tool.OutputSchema == nil {
		t.Fatalf("%s: output schema %v (%v)", tool.Name, tool.OutputSchema, err)
	}
	doc, err := jsv.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsv.NewCompiler()
	c.DefaultDraft(jsv.Draft2020)
	url := "mem://mcp/" + tool.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: output schema does not compile: %v", tool.Name, err)
	}
	return s
}

// TestStructuredContentMatchesOutputSchema plays a right and a wrong
// answer, reads the rewards, lists tasks and ends an episode: every
// structured content validates against its tool's output schema, and
// the schemas refuse what is not their tool's.
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	h := start(t, options{})
	cs := h.connect(t, "")
	listed := listTools(t, cs)
	compiled := map[string]*jsv.Schema{}
	for name, tool := range listed {
		compiled[name] = outputSchema(t, tool)
	}
	check := func(tool string, res *mcp.CallToolResult) {
		t.Helper()
		if err := validate(compiled[tool], res.StructuredContent); err != nil {
			t.Errorf("%s: structured content does not match its output schema: %v", tool, err)
		}
	}
	for _, p := range []play{rightPlay, wrongPlay} {
		check(mcpserver.ToolStartEpisode, call(t, cs, mcpserver.ToolStartEpisode, map[string]any{"task_id": p.task}))
		check(mcpserver.ToolGetReward, call(t, cs, mcpserver.ToolGetReward, nil))
		for _, a := range p.calls {
			check(a.Tool, call(t, cs, a.Tool, a.Arguments))
		}
		check(mcpserver.ToolGetReward, call(t, cs, mcpserver.ToolGetReward, nil))
		check(mcpserver.ToolEndEpisode, call(t, cs, mcpserver.ToolEndEpisode, nil))
	}
	check(mcpserver.ToolListTasks, call(t, cs, mcpserver.ToolListTasks, map[string]any{"limit": 3}))
	for name, s := range compiled {
		if err := validate(s, map[string]any{"bogus": 1}); err == nil {
			t.Errorf("%s: its output schema accepts {\"bogus\": 1}", name)
		}
	}
}

// validate validates v, as JSON, against s.
func validate(s *jsv.Schema, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsv.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// TestRewardSchemaIsTheStruct holds get_reward's output schema to
// Reward: a property for each JSON field, required unless omitempty.
func TestRewardSchemaIsTheStruct(t *testing.T) {
	h := start(t, options{})
	b, _ := json.Marshal(listTools(t, h.connect(t, ""))[mcpserver.ToolGetReward].OutputSchema)
	var schema struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	var fields, required []string
	rt := reflect.TypeFor[mcpserver.Reward]()
	for i := range rt.NumField() {
		name, opts, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		fields = append(fields, name)
		if opts != "omitempty" {
			required = append(required, name)
		}
	}
	var props []string
	for p := range schema.Properties {
		props = append(props, p)
	}
	got := fmt.Sprint(slices.Sorted(slices.Values(props)), slices.Sorted(slices.Values(schema.Required)))
	if want := fmt.Sprint(slices.Sorted(slices.Values(fields)), slices.Sorted(slices.Values(required))); got != want {
		t.Errorf("get_reward's schema: properties and required %s, want %s", got, want)
	}
}

// TestSchemasPortable lints every tool's input and output schema as the
// Inspector CLI's --strict check does, and for its warnings too: no
// boolean where a subschema goes, no type given as an array, and no
// subschema that constrains nothing.
func TestSchemasPortable(t *testing.T) {
	h := start(t, options{})
	for name, tool := range listTools(t, h.connect(t, "")) {
		for kind, schema := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			var root any
			b, _ := json.Marshal(schema)
			if err := json.Unmarshal(b, &root); err != nil {
				t.Fatal(err)
			}
			for _, f := range unportable(root, kind) {
				t.Errorf("%s: %s", name, f)
			}
		}
	}
}

// annotationKeywords constrain nothing.
var annotationKeywords = map[string]bool{"title": true, "description": true, "default": true, "examples": true,
	"$comment": true, "$schema": true, "$id": true, "deprecated": true, "readOnly": true, "writeOnly": true}

// unportable lists what a portability lint finds in a schema, by path.
func unportable(node any, path string) []string {
	m, ok := node.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: %v where a schema object goes", path, node)}
	}
	var found []string
	if _, ok := m["type"].([]any); ok {
		found = append(found, path+": type is an array")
	}
	constrains := false
	for k := range m {
		constrains = constrains || !annotationKeywords[k]
	}
	if !constrains {
		found = append(found, path+": constrains nothing")
	}
	for _, sub := range subschemas(m, path) {
		found = append(found, unportable(sub.node, sub.path)...)
	}
	return found
}

// placed is a subschema and its path.
type placed struct {
	node any
	path string
}

// subschemas are the schemas directly below a schema object (a boolean
// additionalProperties is a keyword's value, not a subschema).
func subschemas(m map[string]any, path string) []placed {
	var out []placed
	for _, k := range []string{"properties", "patternProperties", "$defs"} {
		if props, ok := m[k].(map[string]any); ok {
			for p, sub := range props {
				out = append(out, placed{sub, path + "." + k + "." + p})
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if arr, ok := m[k].([]any); ok {
			for i, sub := range arr {
				out = append(out, placed{sub, fmt.Sprintf("%s.%s[%d]", path, k, i)})
			}
		}
	}
	for _, k := range []string{"items", "not", "additionalProperties", "contains", "propertyNames"} {
		if sub, ok := m[k]; ok {
			if _, isBool := sub.(bool); isBool && k == "additionalProperties" {
				continue
			}
			out = append(out, placed{sub, path + "." + k})
		}
	}
	return out
}
