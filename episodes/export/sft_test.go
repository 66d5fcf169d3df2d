package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/tools"
)

// chatEpisode has a tool-call step, a format error, and a hermes text
// action that submits.
func chatEpisode() *trajlog.Record {
	hermes := `Let me submit.<tool_call>{"name": "submit", "arguments": {"sql": "SELECT count(*) FROM books"}}</tool_call>`
	return rec("ep_chat", "demo/3", "correct", 0.95, t0,
		callStep("execute_sql", `{"sql":"SELECT count(*) FROM books"}`, "count(*)\n12\n(1 row)\n7 turns left."),
		textStep("I think the answer is 12.", "", "", "Error: no tool call found.\n6 turns left."),
		textStep(hermes, "submit", `{"sql":"SELECT count(*) FROM books"}`, "Submitted. Correct."),
	)
}

// sftLine exports one episode as sft and decodes the line generically, so
// the test sees the JSON fields as a trainer would.
func sftLine(t *testing.T, r *trajlog.Record, o export.Options) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	o.Format = export.FormatSFT
	if _, err := export.Run(context.Background(), memReader{r}, trajlog.Filter{}, o, &buf); err != nil {
		t.Fatal(err)
	}
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("sft line is not one JSON object: %v\n%s", err, buf.Bytes())
	}
	return line
}

// toJSON is v as generic JSON.
func toJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

func TestSFTFieldByField(t *testing.T) {
	r := chatEpisode()
	line := sftLine(t, r, export.Options{})
	if len(line) != 2 {
		t.Errorf("sft line has keys %v, want messages and tools", line)
	}
	if got, want := line["tools"], toJSON(t, tools.Definitions()); !reflect.DeepEqual(got, want) {
		t.Errorf("tools = %v, want the server's tool definitions", got)
	}
	call := func(id, name, args string) []any {
		return []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}}
	}
	want := []map[string]any{
		{"role": "system", "content": "You answer with SQL."},
		{"role": "user", "content": "How many books?"},
		{"role": "assistant", "content": "", "tool_calls": call("call_1", "execute_sql", `{"sql":"SELECT count(*) FROM books"}`)},
		{"role": "tool", "tool_call_id": "call_1", "content": "count(*)\n12\n(1 row)\n7 turns left."},
		{"role": "assistant", "content": "I think the answer is 12."},
		{"role": "user", "content": "Error: no tool call found.\n6 turns left."},
		// The chat ends on the last call: the verdict after it is no training signal.
		{"role": "assistant", "content": *r.Steps[2].Action.Text, "tool_calls": call("call_3", "submit", `{"sql":"SELECT count(*) FROM books"}`)},
	}
	msgs, _ := line["messages"].([]any)
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d: %v", len(msgs), len(want), msgs)
	}
	for i, m := range msgs {
		if !reflect.DeepEqual(m, any(want[i])) {
			t.Errorf("message %d:\n got %v\nwant %v", i, m, want[i])
		}
	}
	// The arguments string is itself JSON a trainer can decode.
	var args map[string]string
	if err := json.Unmarshal([]byte(want[2]["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)), &args); err != nil || args["sql"] == "" {
		t.Errorf("arguments do not decode: %v", err)
	}
}

func TestSFTWithoutTextCalls(t *testing.T) {
	line := sftLine(t, chatEpisode(), export.Options{Chat: export.ChatOptions{NoTextCalls: true}})
	msgs := line["messages"].([]any)
	text := msgs[6].(map[string]any)
	if _, ok := text["tool_calls"]; ok {
		t.Errorf("text action turn has tool_calls with NoTextCalls: %v", text)
	}
	if call := msgs[2].(map[string]any); call["tool_calls"] == nil {
		t.Errorf("a tool-call action lost its tool_calls: %v", call)
	}
	r := chatEpisode()
	r.Steps = append(r.Steps, r.Steps[2])
	r.Steps[3].Turn = 4
	msgs = sftLine(t, r, export.Options{Chat: export.ChatOptions{NoTextCalls: true}})["messages"].([]any)
	if obs := msgs[7].(map[string]any); obs["role"] != "tool" || obs["tool_call_id"] != "call_3" {
		t.Errorf("observation of a text action = %v, want a tool turn answering call_3", obs)
	}
}

func TestSFTArgumentsWithoutArguments(t *testing.T) {
	r := rec("ep_inspect", "demo/1", "no_submit", -0.2, t0, callStep("inspect_schema", "", "3 tables"))
	msgs := sftLine(t, r, export.Options{})["messages"].([]any)
	fn := msgs[2].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if fn["arguments"] != "{}" || fn["name"] != "inspect_schema" {
		t.Errorf("call without arguments = %v, want inspect_schema with \"{}\"", fn)
	}
}

// TestSFTArgumentsAsWritten: arguments recorded with <, > and & escaped
// (as Go's encoder writes them) read as themselves in the export, numbers
// keep their text, and the targets differ only in string or object.
func TestSFTArgumentsAsWritten(t *testing.T) {
	r := rec("ep_esc", "demo/1", "correct", 1, t0,
		callStep("submit", `{"sql": "SELECT 1 WHERE 2 \u003e 1 \u0026 \"x\" \u003c\u003e 'y'", "n": 1.50}`, "Submitted. Correct."))
	want := `{"n":1.50,"sql":"SELECT 1 WHERE 2 > 1 & \"x\" <> 'y'"}`
	for target, wantArgs := range map[string]any{"openai": want, "trl": toJSON(t, json.RawMessage(want)), "llamafactory": toJSON(t, json.RawMessage(want))} {
		msgs := sftLine(t, r, export.Options{Chat: export.ChatOptions{Target: target}})["messages"].([]any)
		fn := msgs[2].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
		if !reflect.DeepEqual(fn["arguments"], wantArgs) {
			t.Errorf("%s: arguments = %#v, want %#v", target, fn["arguments"], wantArgs)
		}
	}
}
