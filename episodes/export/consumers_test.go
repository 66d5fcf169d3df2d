package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/testkit/consumers"
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

// allTemplates are the names of consumers.Templates.
func allTemplates() []string {
	var names []string
	for _, tpl := range consumers.Templates() {
		names = append(names, tpl.Name)
	}
	return names
}

// without is names less drop.
func without(names []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(drop, n) })
}

// TestSFTRendersInTheTemplates exports the realistic log for trl with
// each argument shape, with and without --split-calls, for each template
// (--template, which puts the reasoning under the key the template
// reads), and checks every row as TRL loads it (datasets >= 4.7 gives
// each row back as written; SFTTrainer reads it) against the chat rules
// (checkChatRules) and the template's rules. Which templates take every
// row is the table of docs/trajectories-offline.md: objects suit all but
// DeepSeek-V3's original template, which concatenates strings; strings
// suit only it and the Qwen3 templates that test for them; the Llama-3.x
// and gpt-oss templates hold one call per message, so a turn of two
// calls needs --split-calls.
func TestSFTRendersInTheTemplates(t *testing.T) {
	env := environmentText(t)
	tests := []struct {
		args  string
		split bool
		pass  []string // the templates that take every row; the others must refuse one
	}{
		{"object", false, without(allTemplates(), "llama3_1", "llama3_2", "gptoss", "deepseekv3")},
		{"object", true, without(allTemplates(), "deepseekv3")},
		{"string", false, []string{"qwen3", "qwen3_instruct_2507", "deepseekv3"}},
		{"string", true, []string{"qwen3", "qwen3_instruct_2507", "deepseekv3"}},
	}
	for _, tt := range tests {
		name := tt.args
		if tt.split {
			name += "+split"
		}
		for _, tpl := range consumers.Templates() {
			chats := trlChats(t, env, name+"/"+tpl.Name, export.ChatOptions{Target: "trl", Arguments: tt.args, SplitCalls: tt.split, Template: tpl.Name})
			err := chatFailure(tpl, chats)
			if want := slices.Contains(tt.pass, tpl.Name); (err == nil) != want {
				t.Errorf("%s: template %s: refused a row: %v; want a refusal: %v", name, tpl.Name, err, !want)
			}
		}
	}
}

// trlChats exports the realistic log as sft with o, loads it as TRL
// does, checks the chat rules, and returns the chats SFTTrainer renders.
func trlChats(t *testing.T, env []string, name string, o export.ChatOptions) []chat {
	t.Helper()
	lines := exportFor(t, export.Options{Format: "sft", Chat: o})
	loaded, err := consumers.LoadJSONLines(lines, true)
	if err != nil || !reflect.DeepEqual(withoutNulls(loaded), decodeLines(t, lines)) {
		t.Fatalf("%s: datasets >= 4.7 does not give the rows back as written (%v)", name, err)
	}
	var chats []chat
	for i, line := range lines {
		c, err := consumers.TRLSFT(line)
		if err != nil {
			t.Fatalf("%s: SFTTrainer would not read row %d: %v", name, i, err)
		}
		if err := checkChatRules(c.Messages, env); err != nil {
			t.Errorf("%s: row %d: %v", name, i, err)
		}
		chats = append(chats, chat{c.Messages, c.Tools})
	}
	return chats
}

// chatFailure is the first rule of tpl a chat breaks, or nil.
func chatFailure(tpl consumers.Template, chats []chat) error {
	for i, c := range chats {
		if err := tpl.CheckChat(c.msgs, c.tools); err != nil {
			return fmt.Errorf("chat %d: %w", i, err)
		}
	}
	return nil
}

// TestDPORendersInTheTemplates checks every pair of the realistic log,
// exported for each template (--template): TRL reads it, each completion
// is the one assistant message where the chats part (rules of
// checkChatRules on prompt+completion), and prompt+completion starts
// with the prompt rendered with its generation prompt
// (Template.CheckPair) but where the template itself does not allow it:
// after a user message DeepSeek-V3's generation prompt opens a <think>
// block its assistant turns do not write, and after tool messages it
// closes them only before a reply without calls. Without --template,
// gpt-oss hides the text beside the prompt's calls once a message
// without calls follows (pair 0); with it, that text is the message's
// thinking (gpt-oss raises on a call message with both), which it hides
// alike. Nemotron-3-Nano keeps every pair's prefix: enable_thinking is set per
// pair, and its template's empty <think> block is written for a reply
// without reasoning beside one with it. Without --template, the pair of
// one reply with reasoning and one without breaks it (the reply without
// reasoning renders "<think></think>" where the prompt ends in
// "<think>\n").
func TestDPORendersInTheTemplates(t *testing.T) {
	env := environmentText(t)
	refused := map[string][]int{} // template -> pairs whose prefix it breaks
	failing := map[string]error{}
	for _, tpl := range consumers.Templates() {
		c := dpoChats(t, env, export.ChatOptions{SplitCalls: true, Template: tpl.Name})
		if err := chatFailure(tpl, c.chats); err != nil {
			failing[tpl.Name] = err
		}
		if r := c.refusedBy(tpl); r != nil {
			refused[tpl.Name] = r
		}
	}
	want := map[string][]int{"deepseekv3": {0, 1, 2}, "deepseekv3_training": {0, 1, 2}, "gptoss": {0}}
	if !reflect.DeepEqual(refused, want) {
		t.Errorf("pairs whose prefix a template breaks: %v, want %v", refused, want)
	}
	if !reflect.DeepEqual(keys(failing), []string{"deepseekv3"}) {
		t.Errorf("templates refusing a pair's chat: %v, want only deepseekv3 (it takes strings)", failing)
	}
	plain := dpoChats(t, env, export.ChatOptions{SplitCalls: true})
	for name, want := range map[string][]int{"nemotron_3_nano": {2}, "gptoss": {0}} {
		if got := plain.refusedBy(templateNamed(t, name)); !reflect.DeepEqual(got, want) {
			t.Errorf("without --template, %s breaks the prefix of pairs %v, want %v", name, got, want)
		}
	}
	for _, name := range []string{"gptoss", "lfm2_2_5"} {
		tpl := templateNamed(t, name)
		if err := chatFailure(tpl, plain.chats); err == nil || !strings.Contains(err.Error(), "reasoning under reasoning_content is not rendered") {
			t.Errorf("%s took reasoning_content: %v", name, err)
		}
	}
}

// dpoPairs are the pairs of a dpo export as DPOTrainer reads them.
type dpoPairs struct {
	pairs []*consumers.Chat
	chats []chat // prompt+chosen and prompt+rejected of each pair
}

// dpoChats exports the realistic log as dpo with o, loads it as
// TRL does, and checks each pair's shape and chat rules.
func dpoChats(t *testing.T, env []string, o export.ChatOptions) dpoPairs {
	t.Helper()
	lines := exportFor(t, export.Options{Format: "dpo", Chat: o})
	if len(lines) != 3 {
		t.Fatalf("%s: %d pairs, want 3", o.Template, len(lines))
	}
	loaded, err := consumers.LoadJSONLines(lines, true)
	if err != nil || !reflect.DeepEqual(withoutNulls(loaded), decodeLines(t, lines)) {
		t.Fatalf("datasets >= 4.7 does not give the pairs back as written (%v)", err)
	}
	var out dpoPairs
	for i, line := range lines {
		c, err := consumers.TRLDPO(line)
		if err != nil {
			t.Fatalf("DPOTrainer would not read pair %d: %v", i, err)
		}
		if last := c.Prompt[len(c.Prompt)-1]["role"]; last != "user" && last != "tool" {
			t.Errorf("pair %d: the prompt ends on a %v message", i, last)
		}
		for _, side := range [][]map[string]any{c.Chosen, c.RejectedOnly} {
			if len(side) != 1 || side[0]["role"] != "assistant" {
				t.Errorf("pair %d: a completion of %d messages, want the one assistant message", i, len(side))
			}
		}
		for _, full := range [][]map[string]any{c.Messages, c.Rejected} {
			if err := checkChatRules(full, env); err != nil {
				t.Errorf("pair %d: %v", i, err)
			}
			out.chats = append(out.chats, chat{full, c.Tools})
		}
		out.pairs = append(out.pairs, c)
	}
	return out
}

// refusedBy lists the pairs whose prompt prefix tpl breaks.
func (p dpoPairs) refusedBy(tpl consumers.Template) []int {
	var out []int
	for i, c := range p.pairs {
		for _, side := range [][]map[string]any{c.Chosen, c.RejectedOnly} {
			if err := tpl.CheckPair(c.Prompt, side, c.Kwargs); err != nil && !slices.Contains(out, i) {
				out = append(out, i)
			}
		}
	}
	return out
}

// templateNamed is the consumers template of that name.
func templateNamed(t *testing.T, name string) consumers.Template {
	t.Helper()
	for _, tpl := range consumers.Templates() {
		if tpl.Name == name {
			return tpl
		}
	}
	t.Fatalf("no template %s", name)
	return consumers.Template{}
}

// withoutNulls drops the null columns of rows: a row without a column
// reads as None for it, as example.get does for a column it lacks.
func withoutNulls(rows []map[string]any) []map[string]any {
	for _, r := range rows {
		for k, v := range r {
			if v == nil {
				delete(r, k)
			}
		}
	}
	return rows
}

func keys(m map[string]error) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestLlamaFactoryFile: every row of the realistic log survives datasets
// 4.0.0's Arrow loading unchanged (every value is a string), the
// sharegpt converter reads it with the dataset_info.json entry, and each
// function turn gives back the calls it was made of, arguments encoded
// once, with the text beside them once.
func TestLlamaFactoryFile(t *testing.T) {
	for _, split := range []bool{false, true} {
		lines := exportFor(t, export.Options{Format: "sft", Chat: export.ChatOptions{Target: "llamafactory", SplitCalls: split}})
		rows, err := consumers.LoadJSONLines(lines, false)
		if err != nil || !reflect.DeepEqual(rows, decodeLines(t, lines)) {
			t.Fatalf("split %v: datasets 4.0.0 changes the rows (%v)", split, err)
		}
		attr := lfAttr(t, export.DatasetInfoEntry("sft.jsonl"))
		trl := decodeLines(t, exportFor(t, export.Options{Format: "sft", Chat: export.ChatOptions{Target: "trl", SplitCalls: split}}))
		for i, row := range rows {
			ex, err := consumers.LlamaFactorySharegpt(attr, row)
			if err != nil {
				t.Fatalf("split %v: row %d skipped: %v", split, i, err)
			}
			checkLFRow(t, ex, messagesOf(trl[i]["messages"]))
		}
	}
}

// checkLFRow compares a converted LLaMA-Factory example with the trl row
// of the same episode: the same system prompt, one function turn per
// assistant message with calls whose calls and text come back, and one
// observation turn per run of tool messages.
func checkLFRow(t *testing.T, ex *consumers.LFExample, msgs []map[string]any) {
	t.Helper()
	if ex.System != msgs[0]["content"] {
		t.Errorf("system %q", ex.System)
	}
	turns := append(ex.Prompt, ex.Response...)
	j, answers := 0, 0
	for _, m := range msgs[1:] {
		if m["role"] == "tool" {
			answers++
			continue
		}
		if answers > 0 {
			// One answer per call, joined as LLaMA-Factory joins tool turns (converter.py:265-273).
			if turns[j]["role"] != "observation" || strings.Count(turns[j]["content"], "\n</tool_response>\n<tool_response>\n") != answers-1 {
				t.Errorf("turn %d: %v, want an observation of %d answers", j, turns[j], answers)
			}
			j, answers = j+1, 0
		}
		got := turns[j]
		j++
		calls, _ := m["tool_calls"].([]any)
		want := m["content"].(string)
		if r, _ := m["reasoning_content"].(string); r != "" {
			want = "<think>\n" + r + "\n</think>\n\n" + want
		}
		if len(calls) == 0 {
			if got["content"] != want {
				t.Errorf("turn %d: %q, want %q", j, got["content"], want)
			}
			continue
		}
		text, fns, err := consumers.LFFunction(got["content"])
		if err != nil || got["role"] != "function" || len(fns) != len(calls) {
			t.Fatalf("turn %d (%s): %d calls (%v), want %d", j, got["content"], len(fns), err, len(calls))
		}
		if want != "" {
			want += "\n"
		}
		if text != want {
			t.Errorf("turn %d: text beside the calls %q, want %q", j, text, want)
		}
		rendered, _ := consumers.LFQwenFunction(fns)
		for k, c := range calls {
			fn := c.(map[string]any)["function"].(map[string]any)
			var args any
			json.Unmarshal([]byte(fns[k].Arguments), &args)
			if fns[k].Name != fn["name"] || !reflect.DeepEqual(args, fn["arguments"]) || strings.Contains(rendered, `\"`+"sql") {
				t.Errorf("turn %d call %d: %s %s rendered as %s, want %v %v", j, k, fns[k].Name, fns[k].Arguments, rendered, fn["name"], fn["arguments"])
			}
		}
	}
}

// lfAttr is a dataset_info.json entry as LLaMA-Factory reads it.
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

// TestLlamaFactoryPitfalls shows what the llamafactory target avoids:
// the OpenAI chat shape loses its arguments to datasets 4.0.0 (every
// call's arguments become one struct, and a call lacking a key gets it as
// null), and the default tags of an entry without them read no turn.
func TestLlamaFactoryPitfalls(t *testing.T) {
	lines := exportFor(t, export.Options{Format: "sft", Chat: export.ChatOptions{Target: "trl"}})
	rows, err := consumers.LoadJSONLines(lines, false)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(rows, decodeLines(t, lines)) || !bytes.Contains(toBytes(t, rows), []byte(`"arguments":{"sql":null`)) {
		t.Error("datasets 4.0.0 gave the OpenAI-shaped rows back unchanged: the pitfall is gone")
	}
	entry := export.DatasetInfoEntry("sft.jsonl")
	entry.Tags = map[string]string{"role_tag": "from"}
	lf := decodeLines(t, exportFor(t, export.Options{Format: "sft", Chat: export.ChatOptions{Target: "llamafactory"}}))
	if _, err := consumers.LlamaFactorySharegpt(lfAttr(t, entry), lf[0]); err == nil {
		t.Error("an entry whose tags leave the others null read the turns")
	}
}

// TestSFTLoadsAsOpenAIFineTuning: every line of the realistic log meets
// OpenAI's fine-tuning chat format and the chat rules.
func TestSFTLoadsAsOpenAIFineTuning(t *testing.T) {
	env := environmentText(t)
	for i, line := range exportFor(t, export.Options{Format: "sft", Chat: export.ChatOptions{Target: "openai"}}) {
		if err := consumers.OpenAIChat(line); err != nil {
			t.Errorf("OpenAI's format refuses the line: %v\n%s", err, line)
		}
		var row map[string]any
		json.Unmarshal(line, &row)
		if err := checkChatRules(messagesOf(row["messages"]), env); err != nil {
			t.Errorf("row %d: %v", i, err)
		}
	}
	// The checker bites: object arguments are not OpenAI's.
	if err := consumers.OpenAIChat(sftOf(t, "trl")); err == nil || !strings.Contains(err.Error(), "want a string") {
		t.Errorf("the trl line passed OpenAI's rules: %v", err)
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
	if !bytes.Contains(m["alpha"], []byte(`"prompt": "q"`)) || !bytes.Contains(m["sft"], []byte(`"formatting": "sharegpt"`)) {
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
