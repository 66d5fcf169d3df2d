package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// requestSeeds are frames of the conformance tests and cases the fast
// path must read as encoding/json does, or leave to it. They, and
// paramSeeds, are also seeds of base/jsonscan's FuzzScanner.
var requestSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"episode.step","params":{"episode_id":"ep_1","action":{"tool":"execute_sql","arguments":{"sql":"SELECT 1"}}}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"episode.reset","params":{"task_id":"t/count","max_turns":2}}`,
	`{"jsonrpc":"2.0","id":null,"method":"episode.close","params":{"episode_id":""}}`,
	`{"jsonrpc":"2.0","method":"server.info"}`,
	`{"jsonrpc":"2.0","id":1,`, `{"jsonrpc":"1.0","id":1,"method":"server.info"}`, `{"jsonrpc":"2.0","id":2}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"server.info"}`, `{"jsonrpc":"2.0","id":3,"method":"server.info","params":[1]}`,
	` { "JSONRPC" : "2.0" , "Id" : -1.5e3 , "METHOD" : "tasks.list" , "Params" : null } `,
	`{"jsonrpc":"2.0","id":1,"method":"server.info","extra":true}`,
	`{"jsonrpc":"2.0","id":1,"method":"server.info","method":"tasks.list"}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`, `{"jsonrpc":2,"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x"}x`, `{"jsonrpc":"2.0","id":01,"method":"x"}`,
	`{"jsonrpc":"2.0","id":[1,{"a":[true,false,null]}],"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"\u006dethod":"x"}`, `{"jsonrpc":"2.0","id":1,"method":"\u0065pisode.step"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"bad \xff utf-8\"}", `{"jsonrpc":"2.0","id":"\ud800","method":"x"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"server.info"}]`, `null`, `{}`, ``, `{"id":1e999}`, `{"id":-}`, `{"id":1.}`,
	"{\"id\":\"\t\"}", `{"id":"\x"}`, `{"id":"\u12"}`, `{"id":tru}`, `{"id":nul}`, `{"id":[1,]}`, `{"id":{"a"}}`,
}

// paramSeeds are params of the conformance tests and cases the fast path
// must read as encoding/json does, or leave to it.
var paramSeeds = []string{
	`{"episode_id":"ep_1","action":{"tool":"execute_sql","arguments":{"sql":"SELECT name, price FROM items WHERE id = 2"}}}`,
	`{"episode_id":"ep_1","action":{"text":"<tool_call>\n{\"name\": \"submit\", \"arguments\": {\"sql\": \"SELECT 1\"}}\n</tool_call>"},"usage":{"completion_tokens":31}}`,
	`{"episode_id":"ep_x"}`, `{"episode_id":"ep_x","action":{}}`, `{"episode_id":"ep_x","action":{"tool":"submit","text":"x"}}`,
	`{"episode_id":"ep_x","action":{"text":"x","arguments":{}}}`, `{"episode_id":"ep_x","action":{"tool":"submit","arguments":[1]}}`,
	`{"episode_id":"ep_x","action":{"tool":"submit","args":{}}}`, `{"episode_id":"","action":{"tool":"submit"}}`,
	`{"episode_id":7}`, `{"episode_id":"ep_x","steps":true}`, `{}`, ` { } `, `{"episode_id":"a"} {}`,
	`{"episode_id":"ep_x","action":{"tool":"submit","arguments":null}}`, `{"episode_id":"ep_x","action":null}`,
	`{"Episode_ID":"e","ACTION":{"Tool":"submit","ARGUMENTS":{"sql":"x"}},"Usage":{"Completion_Tokens":0}}`,
	`{"episode_id":"a","episode_id":"b"}`, `{"action":{"tool":"a"},"action":{"text":"b"}}`,
	`{"usage":{"completion_tokens":-0}}`, `{"usage":{"completion_tokens":1e3}}`, `{"usage":{"completion_tokens":1.0}}`,
	`{"usage":{"completion_tokens":99999999999999999999}}`, `{"usage":{"completion_tokens":-999999999999999999}}`,
	`{"usage":null}`, `{"usage":{}}`, `{"usage":{"completion_tokens":null}}`,
	`{"action":{"text":"\ud83d\ude00 \ud83d \ude00 \udc00\ud800\u0041 \u00e9\/\b\f\r\t\\\""}}`,
	"{\"action\":{\"text\":\"bad \xff\xfe utf-8 \xed\xa0\x80 \xc3\"}}", "{\"episode_id\":\"ctl \x01\"}",
	`{"action":{"arguments":{"a":[1,-2.5e-3,0.0,1E+2,true,false,null,"\u00e9",{}],"":{"x":[]}}}}`,
	`{"action":{"arguments":"a string"}}`, `{"action":{"arguments":12}}`, `{"action":{"arguments":[[[[[[[[[[[[]]]]]]]]]]]]}}`,
	`{"task_id":"t/count","max_turns":12}`, `{"task_id":"t/count","max_turns":null}`, `{"dataset":"t","seed":3,"max_turns":2}`,
	`{"max_turns":1e300}`, `{"max_turns":1.5}`, `{"max_turns":99999999999999999999}`, `{"max_turns":true}`,
	`{"seed":-1e19}`, `{"seed":00}`, `{"seed":"7"}`, `{"seed":-9223372036854775808}`, `{"seed":922337203685477580}`,
	`{"task_id":"t/count","action_format":"tags","descriptions":true,"tools":["execute_sql","submit"]}`,
	`{"tools":[]}`, `{"tools":null}`, `{"tools":["a",1]}`, `{"descriptions":false}`, `{"descriptions":null}`,
	`{"tags":{"policy":"v3","group":[1,2]},"reward":{"final":{"correct":1}}}`, `{"tags":[1]}`, `{"tags":null}`,
	`{"\u0074ask_id":"t"}`, `{"task_id":"t",}`, `{"task_id" "t"}`, `{"task_id":"t"`, `{"task_id":"t"}}`,
}

// agreeRequest checks fastRequest against encoding/json on raw, and
// reports whether the fast path read it.
func agreeRequest(t *testing.T, raw []byte) bool {
	t.Helper()
	got, ok := fastRequest(raw)
	if !ok {
		return false
	}
	var want schemas.Request
	if err := json.Unmarshal(raw, &want); err != nil || bytes.TrimSpace(raw)[0] != '{' {
		t.Fatalf("fastRequest read %q, which encoding/json refuses (%v)", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fastRequest read %q as\n%s\nencoding/json reads\n%s", raw, show(got), show(want))
	}
	return true
}

// agreeParams checks a fast reader of params against the strict decoder
// on raw, and reports whether the fast reader read them.
func agreeParams[T any](t *testing.T, raw []byte, fast func([]byte) (T, bool)) bool {
	t.Helper()
	got, ok := fast(raw)
	if !ok {
		return false
	}
	var want T
	if e := decodeStrict(raw, &want); e != nil {
		t.Fatalf("the fast path read %q as %T, which encoding/json refuses: %s", raw, got, e.Message)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the fast path read %q as\n%s\nencoding/json reads\n%s", raw, show(got), show(want))
	}
	return true
}

// agreeAllParams checks every fast reader of params, and reports which
// of them read raw.
func agreeAllParams(t *testing.T, raw []byte) []string {
	t.Helper()
	var read []string
	if agreeParams(t, raw, fastStep) {
		read = append(read, "step")
	}
	if agreeParams(t, raw, fastReset) {
		read = append(read, "reset")
	}
	if agreeParams(t, raw, fastClose) {
		read = append(read, "close")
	}
	return read
}

// show prints a decoded value with what its pointers point to.
func show(v any) string {
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprintf("%#v", v)
}

func TestFastPathsAgreeWithEncodingJSON(t *testing.T) {
	for _, raw := range requestSeeds {
		agreeRequest(t, []byte(raw))
	}
	for _, raw := range paramSeeds {
		agreeAllParams(t, []byte(raw))
	}
}

// TestFastPathsReadTheCommonShapes checks which inputs the fast paths
// take: what clients send, escapes, odd case and bad UTF-8 included (so
// the agreement tests do not pass by declining everything), and not what
// they leave to encoding/json.
func TestFastPathsReadTheCommonShapes(t *testing.T) {
	for _, tt := range []struct {
		frame string
		read  bool
	}{
		{requestSeeds[0], true}, {requestSeeds[1], true}, {requestSeeds[2], true}, {requestSeeds[3], true},
		{` { "JSONRPC" : "2.0" , "Id" : -1.5e3 , "METHOD" : "tasks.list" , "Params" : null } `, true},
		{`{"jsonrpc":"2.0","id":[1,{"a":[true,false,null]}],"method":"x"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"\u0065pisode.step"}`, true},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"bad \xff utf-8\"}", true},
		{`{"jsonrpc":"2.0","id":1,"method":"server.info","extra":true}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"server.info","method":"tasks.list"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":null}`, false},
		{`{"jsonrpc":"2.0","id":1,"\u006dethod":"x"}`, false},
	} {
		if got := agreeRequest(t, []byte(tt.frame)); got != tt.read {
			t.Errorf("fastRequest read %s: %v, want %v", tt.frame, got, tt.read)
		}
	}
	step, reset := []string{"step"}, []string{"reset"}
	for _, tt := range []struct {
		params string
		read   []string
	}{
		{paramSeeds[0], step}, {paramSeeds[1], step},
		{`{"Episode_ID":"e","ACTION":{"Tool":"submit","ARGUMENTS":{"sql":"x"}},"Usage":{"Completion_Tokens":0}}`, step},
		{`{"action":{"text":"\ud83d\ude00 \ud83d \ude00 \udc00\ud800\u0041 \u00e9\/\b\f\r\t\\\""}}`, step},
		{"{\"action\":{\"text\":\"bad \xff\xfe utf-8 \xed\xa0\x80 \xc3\"}}", step},
		{`{"action":{"arguments":{"a":[1,-2.5e-3,0.0,1E+2,true,false,null,"\u00e9",{}],"":{"x":[]}}}}`, step},
		{`{"episode_id":"ep_x","action":{"tool":"submit","arguments":null}}`, step},
		{`{"usage":{"completion_tokens":-0}}`, step},
		{`{"task_id":"t/count","action_format":"tags","descriptions":true,"tools":["execute_sql","submit"]}`, reset},
		{`{"tags":{"policy":"v3","group":[1,2]},"reward":{"final":{"correct":1}}}`, reset},
		{`{"seed":922337203685477580}`, reset}, {`{"tools":[]}`, reset},
		{`{"episode_id":"ep_x"}`, []string{"step", "close"}}, {` { } `, []string{"step", "reset", "close"}},
		{`{"episode_id":"a","episode_id":"b"}`, nil}, {`{"action":{"tool":"a"},"action":{"text":"b"}}`, nil},
		{`{"episode_id":"ep_x","action":null}`, nil}, {`{"max_turns":null}`, nil}, {`{"\u0074ask_id":"t"}`, nil},
		{`{"episode_id":"ep_x","steps":true}`, nil}, {`{"usage":{"completion_tokens":1.0}}`, nil},
		{`{"seed":-9223372036854775808}`, nil}, {`{"episode_id":"a"} {}`, nil},
	} {
		if got := agreeAllParams(t, []byte(tt.params)); !slices.Equal(got, tt.read) {
			t.Errorf("the fast paths read %s as %v, want %v", tt.params, got, tt.read)
		}
	}
}

// TestFastParamsKeepNoSliceOfTheFrame: what a step or a reset keeps
// past its frame (arguments, tags, reward) must not change when the
// frame's buffer does.
func TestFastParamsKeepNoSliceOfTheFrame(t *testing.T) {
	stepRaw := []byte(`{"action":{"tool":"submit","arguments":{"sql":"SELECT 1"}}}`)
	resetRaw := []byte(`{"tags":{"g":1},"reward":{"final":{"correct":1}}}`)
	step, ok := fastStep(stepRaw)
	reset, ok2 := fastReset(resetRaw)
	if !ok || !ok2 {
		t.Fatal("the fast path declined plain params")
	}
	wantArgs, wantTags, wantReward := string(step.Action.Arguments), string(reset.Tags), string(reset.Reward)
	clear(stepRaw)
	clear(resetRaw)
	if string(step.Action.Arguments) != wantArgs || string(reset.Tags) != wantTags || string(reset.Reward) != wantReward {
		t.Fatalf("params changed with their frame: %q %q %q", step.Action.Arguments, reset.Tags, reset.Reward)
	}
}

// TestFastFieldsAreTheSchemaFields checks each shape's field names
// against the json tags of its struct: a field renamed in schemas must
// not stay readable under its old name.
func TestFastFieldsAreTheSchemaFields(t *testing.T) {
	for _, tt := range []struct {
		fields []string
		v      any
	}{
		{requestFields, schemas.Request{}}, {stepFields, schemas.StepParams{}}, {actionFields, schemas.Action{}},
		{usageFields, schemas.Usage{}}, {resetFields, schemas.ResetParams{}}, {closeFields, schemas.CloseParams{}},
	} {
		typ := reflect.TypeOf(tt.v)
		var tags []string
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			tags = append(tags, name)
		}
		if !slices.Equal(tt.fields, tags) {
			t.Errorf("%s: the fast path reads fields %v; its json tags are %v", typ, tt.fields, tags)
		}
	}
}
