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
	"github.com/sqlgym/sqlgym/internal/consumers"
)

// exportLines runs an export of rs and returns its lines.
func exportLines(t *testing.T, rs []*trajlog.Record, o export.Options) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := export.Run(context.Background(), memReader(rs), trajlog.Filter{}, o, &buf); err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
}

func sftOf(t *testing.T, target string) []byte {
	t.Helper()
	return exportLines(t, []*trajlog.Record{chatEpisode()}, export.Options{Format: "sft", Chat: export.ChatOptions{Target: target}})[0]
}

func TestSFTLoadsAsOpenAIFineTuning(t *testing.T) {
	for _, target := range []string{"", "openai"} {
		if err := consumers.OpenAIChat(sftOf(t, target)); err != nil {
			t.Errorf("target %q: OpenAI's format refuses the line: %v", target, err)
		}
	}
	// The checker bites: object arguments are not OpenAI's.
	if err := consumers.OpenAIChat(sftOf(t, "trl")); err == nil || !strings.Contains(err.Error(), "want a string") {
		t.Errorf("the trl line passed OpenAI's rules: %v", err)
	}
}

func TestSFTLoadsAsTRL(t *testing.T) {
	chat, err := consumers.TRLSFT(sftOf(t, "trl"))
	if err != nil {
		t.Fatalf("TRL would not read the line: %v", err)
	}
	if len(chat.Tools) != 3 {
		t.Errorf("tools = %v, want the three tool definitions", chat.Tools)
	}
	last := chat.Messages[len(chat.Messages)-1]
	fn := last["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if want := map[string]any{"sql": "SELECT count(*) FROM books"}; last["role"] != "assistant" || !reflect.DeepEqual(fn["arguments"], want) {
		t.Errorf("last turn = %v, want the submit call with arguments %v", last, want)
	}
	if obs := chat.Messages[3]; obs["role"] != "tool" || obs["name"] != "execute_sql" {
		t.Errorf("observation = %v, want a tool turn naming execute_sql", obs)
	}
	if _, err := consumers.TRLSFT(sftOf(t, "openai")); err == nil {
		t.Error("the openai line, whose arguments are strings, passed TRL's rules")
	}
}

// lfAttr is the dataset_info.json entry of the llamafactory target as
// LLaMA-Factory reads it.
func lfAttr(t *testing.T, entry export.DatasetInfo) consumers.LFAttr {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(toBytes(t, entry), &m); err != nil {
		t.Fatal(err)
	}
	return consumers.LFDatasetAttr(m)
}

func toBytes(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSFTLoadsAsLlamaFactory(t *testing.T) {
	attr := lfAttr(t, export.DatasetInfoEntry("sft.jsonl"))
	ex, err := consumers.LlamaFactoryOpenAI(attr, sftOf(t, "llamafactory"))
	if err != nil {
		t.Fatalf("LLaMA-Factory would skip the example: %v", err)
	}
	var roles []string
	for _, m := range append(ex.Prompt, ex.Response...) {
		roles = append(roles, m["role"])
	}
	if want := []string{"user", "function", "observation", "assistant", "user", "function"}; !reflect.DeepEqual(roles, want) {
		t.Errorf("turns %v, want %v", roles, want)
	}
	if ex.System != "You answer with SQL." {
		t.Errorf("system = %q", ex.System)
	}
	if names, err := consumers.LFQwenTools(ex.Tools); err != nil || len(names) != 3 {
		t.Errorf("tools %q read as %v, %v", ex.Tools, names, err)
	}
	rendered, err := consumers.LFQwenFunction(ex.Response[0]["content"])
	if err != nil {
		t.Fatal(err)
	}
	calls := consumers.LFToolCalls(rendered)
	if want := map[string]any{"sql": "SELECT count(*) FROM books"}; len(calls) != 1 || !reflect.DeepEqual(calls[0]["arguments"], want) {
		t.Errorf("rendered call %q: arguments %v, want the object %v", rendered, calls, want)
	}
}

// TestLlamaFactoryPitfalls shows what the target and the entry avoid:
// string arguments arrive double-encoded, and the default observation
// tag leaves tool turns unmapped.
func TestLlamaFactoryPitfalls(t *testing.T) {
	attr := lfAttr(t, export.DatasetInfoEntry("sft.jsonl"))
	ex, err := consumers.LlamaFactoryOpenAI(attr, sftOf(t, "openai"))
	if err != nil {
		t.Fatal(err)
	}
	rendered, _ := consumers.LFQwenFunction(ex.Response[0]["content"])
	if calls := consumers.LFToolCalls(rendered); len(calls) != 1 || reflect.TypeOf(calls[0]["arguments"]).Kind() != reflect.String {
		t.Errorf("string arguments rendered as %q: want them double-encoded (a string), which the target avoids", rendered)
	}
	entry := export.DatasetInfoEntry("sft.jsonl")
	delete(entry.Tags, "observation_tag")
	if _, err := consumers.LlamaFactoryOpenAI(lfAttr(t, entry), sftOf(t, "llamafactory")); err == nil {
		t.Error("an entry without observation_tag read the tool turns")
	}
}

func TestDPOLoadsAsTRL(t *testing.T) {
	rs := []*trajlog.Record{chatEpisode(), submit("bad", "demo/3", "SELECT 2", "mismatch", 0, t0)}
	lines := exportLines(t, rs, export.Options{Format: "dpo"})
	if len(lines) != 1 {
		t.Fatalf("%d pairs, want 1", len(lines))
	}
	chat, err := consumers.TRLDPO(lines[0])
	if err != nil {
		t.Fatalf("DPOTrainer would not read the pair: %v", err)
	}
	if len(chat.Tools) != 3 || len(chat.Messages) != 2+5 || len(chat.Rejected) != 2+1 {
		t.Errorf("pair: %d tools, %d chosen and %d rejected messages with the prompt; want 3, 7, 3",
			len(chat.Tools), len(chat.Messages), len(chat.Rejected))
	}
	for _, target := range []string{"openai", "llamafactory"} {
		if _, err := export.Run(context.Background(), memReader(rs), trajlog.Filter{},
			export.Options{Format: "dpo", Chat: export.ChatOptions{Target: target}}, &bytes.Buffer{}); err == nil {
			t.Errorf("dpo with target %s: no error", target)
		}
	}
}

func TestMergeDatasetInfo(t *testing.T) {
	existing := []byte(`{"zeta": {"file_name": "z.json"}, "sft": {"file_name": "old.jsonl"}, "alpha": {"file_name": "a.json", "columns": {"prompt": "q"}}}`)
	entry := export.DatasetInfoEntry("sft.jsonl")
	got, err := export.MergeDatasetInfo(existing, "sft", entry)
	if err != nil {
		t.Fatal(err)
	}
	keys := jsonKeys(t, got)
	if want := []string{"zeta", "sft", "alpha"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("entries %v, want %v (replaced in place, order kept)", keys, want)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(got, &m)
	if !bytes.Contains(m["alpha"], []byte(`"prompt": "q"`)) || !bytes.Contains(m["sft"], []byte(`"observation_tag": "tool"`)) {
		t.Errorf("merged file:\n%s", got)
	}
	got, _ = export.MergeDatasetInfo(got, "more", entry)
	if keys := jsonKeys(t, got); !reflect.DeepEqual(keys, []string{"zeta", "sft", "alpha", "more"}) {
		t.Errorf("a new entry: %v", keys)
	}
	if got, err := export.MergeDatasetInfo(nil, "sft", entry); err != nil || !reflect.DeepEqual(jsonKeys(t, got), []string{"sft"}) {
		t.Errorf("new file: %s, %v", got, err)
	}
	for _, bad := range []string{`[1]`, `{"a": 1`, `{"a": 1} {}`} {
		if _, err := export.MergeDatasetInfo([]byte(bad), "sft", entry); err == nil {
			t.Errorf("%s: merged into a file that is not one JSON object", bad)
		}
	}
}

// jsonKeys lists a JSON object's keys in order.
func jsonKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token()
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
