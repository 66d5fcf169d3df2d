package export_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/testkit/consumers"
)

// reasoningOf is the native_repair episode's first assistant message, as
// an sft row for o writes it.
func reasoningOf(t *testing.T, o export.ChatOptions) map[string]any {
	t.Helper()
	line := exportLines(t, []*trajlog.Record{realistic()[0]}, export.Options{Format: "sft", Chat: o})[0]
	var row struct{ Messages []map[string]any }
	if err := json.Unmarshal(line, &row); err != nil {
		t.Fatal(err)
	}
	return row.Messages[2]
}

// TestReasoningKey: the reasoning is written under reasoning_content by
// default, under thinking with --reasoning-key thinking, and under the
// key the template reads with --template (thinking for gpt-oss and
// LFM2.5). For gpt-oss, which raises on a call message with both text and
// thinking, the text goes into the thinking after the reasoning.
func TestReasoningKey(t *testing.T) {
	const reasoning, text = "Die Frage nennt Bücher: welche Tabellen gibt es?", "Ich sehe mir zuerst das Schema an."
	tests := []struct {
		name          string
		o             export.ChatOptions
		key, other    string
		want, content string
	}{
		{"default", export.ChatOptions{}, "reasoning_content", "thinking", reasoning, text},
		{"--reasoning-key thinking", export.ChatOptions{ReasoningKey: "thinking"}, "thinking", "reasoning_content", reasoning, text},
		{"--template lfm2_2_5", export.ChatOptions{Template: "lfm2_2_5"}, "thinking", "reasoning_content", reasoning, text},
		{"--template lfm2_5", export.ChatOptions{Template: "lfm2_5"}, "thinking", "reasoning_content", reasoning, text},
		{"--template nemotron_3_nano_training", export.ChatOptions{Template: "nemotron_3_nano_training"}, "reasoning_content", "thinking", reasoning, text},
		{"--template gpt-oss", export.ChatOptions{Template: "gpt-oss", SplitCalls: true}, "thinking", "reasoning_content", reasoning + "\n\n" + text, ""},
	}
	for _, tt := range tests {
		tt.o.Target = export.TargetTRL
		m := reasoningOf(t, tt.o)
		if m[tt.key] != tt.want || m[tt.other] != nil || m["content"] != tt.content {
			t.Errorf("%s: message %v, want %s %q and content %q", tt.name, m, tt.key, tt.want, tt.content)
		}
	}
	if m := reasoningOf(t, export.ChatOptions{Target: export.TargetOpenAI}); m["reasoning_content"] != nil || m["thinking"] != nil {
		t.Errorf("openai: message %v carries reasoning", m)
	}
}

// TestReasoningKeyRefused: a clear error for a key or template that is
// unknown, that contradict each other, or that the target does not take.
func TestReasoningKeyRefused(t *testing.T) {
	tests := []struct {
		o    export.ChatOptions
		want string
	}{
		{export.ChatOptions{Target: "trl", ReasoningKey: "reasoning"}, `unknown reasoning key "reasoning"`},
		{export.ChatOptions{Target: "trl", Template: "mistral"}, `unknown chat template "mistral"`},
		{export.ChatOptions{Target: "trl", Template: "gptoss", ReasoningKey: "reasoning_content"}, `reads reasoning under "thinking"`},
		{export.ChatOptions{Target: "openai", ReasoningKey: "thinking"}, "target openai takes no template or reasoning key"},
		{export.ChatOptions{Target: "llamafactory", Template: "qwen3"}, "target llamafactory takes no template"},
	}
	for _, tt := range tests {
		if _, err := tt.o.Resolve(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.o, err, tt.want)
		}
	}
}

// TestTemplatesKnowTheirKey: every template the consumer tests replicate
// is a --template name, and picks the key that template reads.
func TestTemplatesKnowTheirKey(t *testing.T) {
	for _, tpl := range consumers.Templates() {
		o, err := export.ChatOptions{Target: "trl", Template: tpl.Name}.Resolve()
		if err != nil {
			t.Errorf("%s: %v", tpl.Name, err)
			continue
		}
		if tpl.Reasoning != "" && o.ReasoningKey != tpl.Reasoning {
			t.Errorf("%s reads %s, --template picks %s", tpl.Name, tpl.Reasoning, o.ReasoningKey)
		}
	}
}

// TestDPOThinkingPerPair: each pair asks for thinking when either reply
// reasons and not otherwise (the three pairs of the realistic log: two
// without reasoning, one whose chosen reply has a <think> block), and
// for Nemotron-3-Nano the reply without reasoning beside one with it gets
// the empty <think> block its template writes, so both start where the
// prompt, rendered with thinking on, ends.
func TestDPOThinkingPerPair(t *testing.T) {
	for _, tpl := range []string{"", "nemotron_3_nano"} {
		got, _ := dpoLines(t, realistic(), export.Options{Chat: export.ChatOptions{SplitCalls: true, Template: tpl}})
		var kw []bool
		for _, p := range got {
			kw = append(kw, p.ChatTemplateKwargs["enable_thinking"])
		}
		if len(kw) != 3 || kw[0] || kw[1] || !kw[2] {
			t.Fatalf("%q: enable_thinking per pair %v, want [false false true]", tpl, kw)
		}
		rejected := got[2].Rejected[0].Content
		if padded := strings.HasPrefix(rejected, "<think>\n\n</think>\n"); padded != (tpl != "") {
			t.Errorf("%q: the reply without reasoning beside one with it is %q", tpl, rejected)
		}
		if strings.HasPrefix(got[0].Chosen[0].Content, "<think>") || strings.HasPrefix(got[2].Chosen[0].Content, "<think>\n\n</think>") {
			t.Errorf("%q: a reply got an empty <think> block it needs not: %+v", tpl, got)
		}
	}
}
