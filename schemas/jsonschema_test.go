package schemas_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sqlgym/sqlgym/internal/testkit/schematest"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestJSONSchemaNames(t *testing.T) {
	names := schemas.JSONSchemaNames()
	if !slices.IsSorted(names) {
		t.Errorf("JSONSchemaNames() = %v, not sorted", names)
	}
	want := []string{"rpc.request", "rpc.response", "rpc.error", "reward_spec", "trajectory", "trajectory.line", "tool"}
	for _, m := range []string{schemas.MethodServerInfo, schemas.MethodTasksList, schemas.MethodTasksSchema, schemas.MethodReset,
		schemas.MethodStep, schemas.MethodClose, schemas.MethodEpisodeGet} {
		want = append(want, m+".params", m+".result")
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("JSONSchemaNames() = %v\nwant %v", names, want)
	}
}

func TestJSONSchemaLookup(t *testing.T) {
	tests := []struct {
		name    string
		wantErr bool
	}{
		{"trajectory", false},
		{"episode.step.params.schema.json", false},
		{"episode.step", true},
		{"../jsonschema/tool", true},
		{"", true},
	}
	for _, tt := range tests {
		b, err := schemas.JSONSchema(tt.name)
		if gotErr := err != nil; gotErr != tt.wantErr {
			t.Errorf("JSONSchema(%q) error = %v, want error %v", tt.name, err, tt.wantErr)
			continue
		}
		if err != nil {
			if !errors.Is(err, schemas.ErrUnknownSchema) {
				t.Errorf("JSONSchema(%q) error = %v, want one wrapping ErrUnknownSchema", tt.name, err)
			}
			continue
		}
		if !json.Valid(b) || !bytes.Contains(b, []byte(`"$schema"`)) {
			t.Errorf("JSONSchema(%q) = %.80s..., not a JSON Schema", tt.name, b)
		}
	}
	if _, err := schemas.JSONSchema("nope"); err == nil || !strings.Contains(err.Error(), "episode.step.params") {
		t.Errorf("unknown schema error = %v, want the known names listed", err)
	}
}

// TestJSONSchemaRules checks the schemas accept and reject what the
// protocol (and the server's decoders) do.
func TestJSONSchemaRules(t *testing.T) {
	spec, err := json.Marshal(schemas.DefaultRewardSpec())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		schema string
		doc    string
		valid  bool
	}{
		{"rpc.request", `{"jsonrpc":"2.0","id":1,"method":"episode.step","params":{}}`, true},
		{"rpc.request", `{"jsonrpc":"2.0","id":"a","method":"server.info"}`, true},
		{"rpc.request", `{"jsonrpc":"2.0","method":"server.info"}`, true}, // a notification
		{"rpc.request", `{"jsonrpc":"1.0","id":1,"method":"server.info"}`, false},
		{"rpc.request", `{"jsonrpc":"2.0","id":{},"method":"server.info"}`, false},
		{"rpc.request", `{"jsonrpc":"2.0","id":1}`, false},
		{"rpc.request", `{"jsonrpc":"2.0","id":1,"method":"server.info","params":[1]}`, false},
		{"rpc.response", `{"jsonrpc":"2.0","id":1,"result":{"total":0}}`, true},
		{"rpc.response", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, true},
		{"rpc.response", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"m"}}`, false},
		{"rpc.response", `{"jsonrpc":"2.0","id":1}`, false},
		{"rpc.error", `{"code":-32001,"message":"no episode"}`, true},
		{"rpc.error", `{"code":"x","message":"m"}`, false},
		{"server.info.params", `{}`, true},
		{"server.info.params", `{"verbose":true}`, false},
		{"tasks.list.params", `{"dataset":"t","offset":5,"limit":10000}`, true},
		{"tasks.list.params", `{"limit":10001}`, false},
		{"tasks.list.params", `{"offset":-1}`, false},
		{"tasks.list.params", `{"datset":"t"}`, false},
		{"episode.reset.params", `{"task_id":"t/1","seed":7,"max_turns":4,"action_format":"tags",
			"reward":{"match":"spider","turn":{"cap":0.3}},"tags":{"policy":"p","group":7}}`, true},
		{"episode.reset.params", `{"reward":{"final":{"corect":1}}}`, false},
		{"episode.reset.params", `{"reward":{"match":"fuzzy"}}`, false},
		{"episode.reset.params", `{"reward":{"turn":{"cap":-1}}}`, false},
		{"episode.reset.params", `{"tags":[1]}`, false},
		{"episode.reset.params", `{"action_format":"xml"}`, false},
		{"episode.reset.params", `{"max_turns":-1}`, false},
		{"episode.reset.params", `{"seed":"7"}`, false},
		{"episode.step.params", `{"episode_id":"e","action":{"tool":"execute_sql","arguments":{"sql":"SELECT 1"}}}`, true},
		{"episode.step.params", `{"episode_id":"e","action":{"tool":"inspect_schema"}}`, true},
		{"episode.step.params", `{"episode_id":"e","action":{"text":"<sql>SELECT 1</sql>"}}`, true},
		{"episode.step.params", `{"episode_id":"e","action":{"tool":"submit","text":"x"}}`, false},
		{"episode.step.params", `{"episode_id":"e","action":{}}`, false},
		{"episode.step.params", `{"episode_id":"e","action":{"text":"x","arguments":{}}}`, false},
		{"episode.step.params", `{"episode_id":"e","action":{"tool":"submit","arguments":[1]}}`, false},
		{"episode.step.params", `{"episode_id":"e","action":{"tool":"submit","args":{}}}`, false},
		{"episode.step.params", `{"episode_id":"","action":{"tool":"submit"}}`, false},
		{"episode.step.params", `{"episode_id":"e"}`, false},
		{"episode.close.params", `{"episode_id":"e"}`, true},
		{"episode.close.params", `{}`, false},
		{"episode.get.params", `{"episode_id":"e","steps":true}`, false},
		{"reward_spec", string(spec), true},
		{"reward_spec", `{"match":"spider"}`, false}, // a complete spec has every member
		{"episode.close.result", `{"episode_id":"e","outcome":"won","final_reward":0,"total_reward":0,
			"turns":1,"reward_components":{}}`, false},
		{"episode.close.result", `{"episode_id":"e","outcome":"correct","final_reward":1,"total_reward":1,
			"turns":1,"reward_components":{"final.correct":1},"later_field":true}`, true}, // results stay open
		{"tool", `{"type":"function","function":{"name":"submit","description":"d","parameters":{"type":"object"}}}`, true},
		{"tool", `{"type":"function","function":{"name":"submit","description":"d","parameters":"{}"}}`, false},
	}
	compiled := schematest.Compile(t)
	for _, tt := range tests {
		doc, err := jsv.UnmarshalJSON(strings.NewReader(tt.doc))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.schema, tt.doc, err)
		}
		err = compiled[tt.schema].Validate(doc)
		if got := err == nil; got != tt.valid {
			t.Errorf("%s accepts %s = %v, want %v (%v)", tt.schema, tt.doc, got, tt.valid, err)
		}
	}
}
