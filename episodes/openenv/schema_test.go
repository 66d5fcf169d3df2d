package openenv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// fetchSchemas compiles the action, observation and state schemas GET
// /schema serves (OpenEnv's SchemaResponse).
func fetchSchemas(t *testing.T, s *surface) map[string]*jsv.Schema {
	t.Helper()
	resp, err := http.Get(s.base + "/schema")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var parts map[string]json.RawMessage
	if err := json.Unmarshal(body, &parts); err != nil || len(parts) != 3 {
		t.Fatalf("GET /schema: %v: %.300s", err, body)
	}
	c := jsv.NewCompiler()
	out := map[string]*jsv.Schema{}
	for _, name := range []string{"action", "observation", "state"} {
		doc, err := jsv.UnmarshalJSON(bytes.NewReader(parts[name]))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		url := "mem://openenv/" + name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		if out[name], err = c.Compile(url); err != nil {
			t.Fatalf("compile %s: %v", name, err)
		}
	}
	return out
}

// valid checks v (a decoded message part) against the schema.
func valid(t *testing.T, sch *jsv.Schema, what string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	doc, _ := jsv.UnmarshalJSON(bytes.NewReader(b))
	if err := sch.Validate(doc); err != nil {
		t.Errorf("%s does not fit its schema: %v\n%.400s", what, err, b)
	}
}

// TestSchemasValidateRealMessages checks the schemas of GET /schema
// accept the actions a client sends and the observations and states the
// server answers over a whole episode (a message action included), and
// refuse a malformed action.
func TestSchemasValidateRealMessages(t *testing.T) {
	s := start(t, nil, nil)
	sch := fetchSchemas(t, s)
	task := s.Dataset.Tasks[0]
	c := s.dial(t, nil)
	valid(t, sch["state"], "the state before a reset", data(t, c.call(map[string]any{"type": "state"}), "state"))
	valid(t, sch["observation"], "the reset observation",
		data(t, c.call(reset(map[string]any{"task_id": task.ID, "tags": map[string]any{"run": 1}})), "observation")["observation"])
	msg := assistant(task.GoldSQL)
	for _, step := range []map[string]any{listTools(), callTool("no_such_tool", nil), callTool("execute_sql", map[string]any{"sql": "SELECT 1"}),
		{"type": "step", "data": map[string]any{"type": "message", "message": msg}}} {
		valid(t, sch["action"], "the action", step["data"])
		valid(t, sch["observation"], "the observation", data(t, c.call(step), "observation")["observation"])
	}
	valid(t, sch["state"], "the state after the end", data(t, c.call(map[string]any{"type": "state"}), "state"))
	b, _ := json.Marshal(map[string]any{"type": "call_tool", "tool": "x"})
	doc, _ := jsv.UnmarshalJSON(bytes.NewReader(b))
	if sch["action"].Validate(doc) == nil {
		t.Fatal("an action with an unknown field fits the schema")
	}
}

// assistant is an assistant message (OpenAI chat shape) that looks at the
// schema and submits sql in one turn.
func assistant(sql string) map[string]any {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
		map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "inspect_schema", "arguments": "{}"}},
		map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": "submit", "arguments": string(args)}},
	}}
}

// TestMessageActionEqualsNative checks the message action (a turn of
// several calls) pays what episode.step with the same message pays.
func TestMessageActionEqualsNative(t *testing.T) {
	s := start(t, nil, nil)
	task := s.Dataset.Tasks[3]
	var m schemas.AssistantMessage
	b, _ := json.Marshal(assistant(task.GoldSQL))
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	nc := s.Dial(t)
	r, err := nc.Reset(context.Background(), schemas.ResetParams{TaskID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	want, err := nc.Step(context.Background(), r.EpisodeID, client.Message(m))
	if err != nil {
		t.Fatal(err)
	}
	c := s.dial(t, nil)
	data(t, c.call(reset(map[string]any{"task_id": task.ID})), "observation")
	got := data(t, c.call(map[string]any{"type": "step", "data": map[string]any{"type": "message", "message": assistant(task.GoldSQL)}}), "observation")
	obs := got["observation"].(map[string]any)
	if got["reward"] != want.Reward || got["done"] != true || len(obs["tool_messages"].([]any)) != 2 ||
		obs["metadata"].(map[string]any)["outcome"] != want.Info.Outcome || want.Info.Outcome != schemas.OutcomeCorrect {
		t.Fatalf("message step: %v; native reward %v outcome %s", got, want.Reward, want.Info.Outcome)
	}
}
