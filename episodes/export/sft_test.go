package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/tools"
)

// chatEpisode has a tool-call step, a format error, and a hermes text
// action that submits, recorded before steps kept their content.
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

// sftMessages is the messages of r's sft line.
func sftMessages(t *testing.T, r *trajlog.Record, o export.ChatOptions) []map[string]any {
	t.Helper()
	return messagesOf(sftLine(t, r, export.Options{Chat: o})["messages"])
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

// calls is a tool_calls list of one call per (id, name, arguments).
func calls(c ...any) []any {
	var out []any
	for i := 0; i < len(c); i += 3 {
		out = append(out, map[string]any{"id": c[i], "type": "function", "function": map[string]any{"name": c[i+1], "arguments": c[i+2]}})
	}
	return out
}

func sqlObj(sql string) map[string]any { return map[string]any{"sql": sql} }

// equalMessages reports each message of got that differs from want.
func equalMessages(t *testing.T, what string, got []map[string]any, want []map[string]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d messages, want %d:\n%v", what, len(got), len(want), got)
		return
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s: message %d:\n got %v\nwant %v", what, i, got[i], want[i])
		}
	}
}

// TestSFTFieldByField: the default target is trl. A call the client
// parsed is an assistant message of that call and a tool message naming
// it; a reply with no call is its text and the observation as a user
// turn; a hermes reply recorded before steps kept their content is its
// call, with the text outside the block as the server's parser reads it.
func TestSFTFieldByField(t *testing.T) {
	r := chatEpisode()
	line := sftLine(t, r, export.Options{})
	if got, want := line["tools"], toJSON(t, tools.Definitions()); len(line) != 2 || !reflect.DeepEqual(got, want) {
		t.Errorf("sft line %v: want messages and the server's tool definitions", line)
	}
	equalMessages(t, "trl", messagesOf(line["messages"]), []map[string]any{
		{"role": "system", "content": "You answer with SQL."},
		{"role": "user", "content": "How many books?"},
		{"role": "assistant", "content": "", "tool_calls": calls("call_1_0", "execute_sql", sqlObj("SELECT count(*) FROM books"))},
		{"role": "tool", "tool_call_id": "call_1_0", "name": "execute_sql", "content": "count(*)\n12\n(1 row)\n7 turns left."},
		{"role": "assistant", "content": "I think the answer is 12."},
		{"role": "user", "content": "Error: no tool call found.\n6 turns left."},
		// The chat ends on the last reply: the verdict after it is no training signal.
		{"role": "assistant", "content": "Let me submit.", "tool_calls": calls("call_3_0", "submit", sqlObj("SELECT count(*) FROM books"))},
	})
	// A v1 step of a text with two blocks ran the first only: its raw text is what is written.
	two := `<tool_call>{"name": "execute_sql", "arguments": {"sql": "SELECT 1"}}</tool_call><tool_call>{"name": "submit", "arguments": {"sql": "SELECT 1"}}</tool_call>`
	r = rec("ep_two", "demo/3", "mismatch", 0, t0, textStep(two, "execute_sql", `{"sql":"SELECT 1"}`, "1\nNote: only the first call ran."))
	if msgs := sftMessages(t, r, export.ChatOptions{}); msgs[2]["content"] != two || msgs[2]["tool_calls"] != nil {
		t.Errorf("a v1 text of two blocks = %v, want its raw text", msgs[2])
	}
}

// TestSFTMessages: a turn that came as an assistant message is its
// content, its reasoning and each call with the model's id; each call
// gets a tool message. openai leaves the reasoning out (its format has
// no field for it), writes arguments as strings and names no tool.
func TestSFTMessages(t *testing.T) {
	r := episode("native_repair")
	austen := `SELECT count(title) FROM books WHERE author = 'Jane Austen' AND year < 1820`
	want := []map[string]any{
		{"role": "system", "content": "You answer with SQL."},
		{"role": "user", "content": "How many books?"},
		{"role": "assistant", "content": "Ich sehe mir zuerst das Schema an.", "reasoning_content": "Die Frage nennt Bücher: welche Tabellen gibt es?",
			"tool_calls": calls("chatcmpl-tool-7f3a", "inspect_schema", map[string]any{}, "chatcmpl-tool-9b1c", "execute_sql", sqlObj("SELECT count(*) FROM bücher"))},
		{"role": "tool", "tool_call_id": "chatcmpl-tool-7f3a", "name": "inspect_schema", "content": r.Steps[0].Calls[0].Observation},
		{"role": "tool", "tool_call_id": "chatcmpl-tool-9b1c", "name": "execute_sql", "content": "Error: no such table: bücher\n6 turns left."},
		{"role": "assistant", "content": "", "tool_calls": calls("chatcmpl-tool-c2d4", "execute_sql", sqlObj(austen))},
		{"role": "tool", "tool_call_id": "chatcmpl-tool-c2d4", "name": "execute_sql", "content": "count(*)\n6\n(1 row)\n5 turns left."},
		{"role": "assistant", "content": "Es sind 6 Titel.", "tool_calls": calls("chatcmpl-tool-e5f6", "submit", sqlObj(austen))},
	}
	equalMessages(t, "trl", sftMessages(t, r, export.ChatOptions{}), want)

	for _, m := range want {
		delete(m, "reasoning_content")
		delete(m, "name")
		list, _ := m["tool_calls"].([]any)
		for _, c := range list {
			fn := c.(map[string]any)["function"].(map[string]any)
			b, _ := json.Marshal(fn["arguments"])
			fn["arguments"] = strings.ReplaceAll(string(b), `\u003c`, "<")
		}
	}
	equalMessages(t, "openai", sftMessages(t, r, export.ChatOptions{Target: "openai"}), want)
}

// TestSFTTextActions: a hermes text action recorded with its content is
// its calls, with the text outside the blocks (reasoning included) as
// content; --text-actions text writes it as its raw text, no calls, and
// the observations as one user turn; a tags action is always its raw
// text.
func TestSFTTextActions(t *testing.T) {
	r := episode("hermes_two_blocks")
	msgs := sftMessages(t, r, export.ChatOptions{})
	first := msgs[2]
	if first["content"] != *r.Steps[0].Content || len(first["tool_calls"].([]any)) != 2 {
		t.Errorf("hermes turn of two blocks = %v, want its content and both calls", first)
	}
	if msgs[3]["tool_call_id"] != "call_1_0" || msgs[4]["tool_call_id"] != "call_1_1" || msgs[5]["content"] != "Only Austen's count." {
		t.Errorf("after it: %v", msgs[3:])
	}

	msgs = sftMessages(t, r, export.ChatOptions{TextActions: "text"})
	equalMessages(t, "text", msgs[2:], []map[string]any{
		{"role": "assistant", "content": *r.Steps[0].Action.Text},
		{"role": "user", "content": r.Steps[0].Observation},
		{"role": "assistant", "content": *r.Steps[1].Action.Text},
	})

	tags := episode("tags")
	line := sftLine(t, tags, export.Options{})
	if _, ok := line["tools"]; ok {
		t.Errorf("a chat without calls lists tools: %v", line["tools"])
	}
	equalMessages(t, "tags", messagesOf(line["messages"])[2:], []map[string]any{
		{"role": "assistant", "content": *tags.Steps[0].Action.Text},
		{"role": "user", "content": tags.Steps[0].Observation},
		{"role": "assistant", "content": *tags.Steps[1].Action.Text},
	})
}

// TestSFTSplitCalls: one assistant message per call, each followed by its
// tool message; the turn's content and reasoning go with its first call;
// the tool messages of the last turn's last message are left out.
func TestSFTSplitCalls(t *testing.T) {
	r := episode("submit_then_call")
	msgs := sftMessages(t, r, export.ChatOptions{SplitCalls: true})
	roles := []string{}
	for _, m := range msgs[2:] {
		roles = append(roles, m["role"].(string)+":"+strings.Join(callNames(m), ","))
	}
	if want := []string{"assistant:submit", "tool:", "assistant:execute_sql"}; !reflect.DeepEqual(roles, want) {
		t.Errorf("split turn %v, want %v", roles, want)
	}
	msgs = sftMessages(t, episode("native_repair"), export.ChatOptions{SplitCalls: true})
	if msgs[2]["reasoning_content"] == nil || msgs[4]["content"] != "" || msgs[4]["reasoning_content"] != nil || msgs[3]["role"] != "tool" {
		t.Errorf("the first call's message keeps the text and reasoning, the second has none: %v", msgs[2:6])
	}
}

func callNames(m map[string]any) []string {
	var out []string
	list, _ := m["tool_calls"].([]any)
	for _, c := range list {
		out = append(out, c.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return out
}

func TestSFTArgumentsWithoutArguments(t *testing.T) {
	r := rec("ep_inspect", "demo/1", "no_submit", -0.2, t0, callStep("inspect_schema", "", "3 tables"))
	for target, want := range map[string]any{"trl": map[string]any{}, "openai": "{}"} {
		fn := sftMessages(t, r, export.ChatOptions{Target: target})[2]["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
		if !reflect.DeepEqual(fn["arguments"], want) || fn["name"] != "inspect_schema" {
			t.Errorf("%s: call without arguments = %v, want inspect_schema with %#v", target, fn, want)
		}
	}
}

// TestSFTArgumentsAsWritten: arguments recorded with <, > and & escaped
// (as Go's encoder writes them) read as themselves in the export, numbers
// keep their text, and the shapes differ only in string or object.
func TestSFTArgumentsAsWritten(t *testing.T) {
	r := rec("ep_esc", "demo/1", "correct", 1, t0,
		callStep("submit", `{"sql": "SELECT 1 WHERE 2 \u003e 1 \u0026 \"x\" \u003c\u003e 'y'", "n": 1.50}`, "Submitted. Correct."))
	want := `{"n":1.50,"sql":"SELECT 1 WHERE 2 > 1 & \"x\" <> 'y'"}`
	for _, o := range []export.ChatOptions{{Target: "openai"}, {Arguments: "string"}, {}, {Target: "llamafactory"}} {
		var args any
		if o.Target == "llamafactory" {
			turn := messagesOf(sftLine(t, r, export.Options{Chat: o})["conversations"])[2]["value"].(string)
			args = strings.TrimSuffix(strings.TrimPrefix(turn, `[{"name":"submit","arguments":`), "}]")
		} else {
			args = sftMessages(t, r, o)[2]["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"]
		}
		switch {
		case o.Target == "openai" || o.Arguments == "string":
			if args != want {
				t.Errorf("%+v: arguments = %#v, want the string %s", o, args, want)
			}
		case o.Target == "llamafactory":
			if args != strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(want) {
				t.Errorf("%+v: arguments = %s, want %s with <, > and & escaped", o, args, want)
			}
		default:
			if b, _ := json.Marshal(args); !reflect.DeepEqual(toJSON(t, json.RawMessage(b)), toJSON(t, json.RawMessage(want))) {
				t.Errorf("%+v: arguments = %#v, want the object %s", o, args, want)
			}
		}
	}
}

// TestUnrenderable: an episode with a call whose arguments are not an
// object is left out of sft and dpo, and counted; so is, for
// llamafactory, a turn whose text beside its calls holds <tool_call>.
func TestUnrenderable(t *testing.T) {
	bad := episode("bad_arguments")
	odd := rec("odd", "demo/1", "correct", 1, t0, messageStep(ptr("<think>maybe <tool_call> here</think>"), nil,
		call{tool: "submit", args: `{"sql":"SELECT 12"}`, obs: "Submitted. Correct."}))
	for _, o := range []export.Options{{Format: "sft"}, {Format: "sft", Chat: export.ChatOptions{Target: "openai"}}, {Format: "dpo"}} {
		rep, err := export.Run(context.Background(), memReader{bad, odd}, trajlog.Filter{}, o, &bytes.Buffer{})
		if err != nil || rep.Dropped[export.DropUnrenderable] != 1 || !strings.Contains(rep.Summary(), "unrenderable") {
			t.Errorf("%+v: dropped %v (%v), want the bad arguments' episode counted", o, rep.Dropped, err)
		}
	}
	rep, _ := export.Run(context.Background(), memReader{bad, odd}, trajlog.Filter{}, export.Options{Format: "sft", Chat: export.ChatOptions{Target: "llamafactory"}}, &bytes.Buffer{})
	if rep.Dropped[export.DropUnrenderable] != 2 {
		t.Errorf("llamafactory dropped %v, want both", rep.Dropped)
	}
	rep, _ = export.Run(context.Background(), memReader{bad, odd}, trajlog.Filter{}, export.Options{Format: "raw"}, &bytes.Buffer{})
	if rep.Written != 2 || strings.Contains(rep.Summary(), "unrenderable") {
		t.Errorf("raw: %+v", rep)
	}
}

func TestChatOptions(t *testing.T) {
	for _, tt := range []struct {
		o    export.ChatOptions
		want string // the resolved arguments, or the error's words
	}{
		{export.ChatOptions{Target: "trl"}, "object"},
		{export.ChatOptions{Target: "trl", Arguments: "string"}, "string"},
		{export.ChatOptions{Target: "openai"}, "string"},
		{export.ChatOptions{Target: "llamafactory"}, "object"},
		{export.ChatOptions{Target: "openai", Arguments: "object"}, "openai takes arguments as string only"},
		{export.ChatOptions{Target: "llamafactory", Arguments: "string"}, "llamafactory takes arguments as object only"},
		{export.ChatOptions{Target: "trl", Arguments: "yaml"}, `unknown arguments shape "yaml"`},
		{export.ChatOptions{Target: "trl", TextActions: "both"}, `unknown text action rendering "both"`},
	} {
		got, err := tt.o.Resolve()
		if err != nil && !strings.Contains(err.Error(), tt.want) || err == nil && (got.Arguments != tt.want || got.TextActions != "calls") {
			t.Errorf("%+v: %+v, %v; want %s", tt.o, got, err, tt.want)
		}
	}
}
