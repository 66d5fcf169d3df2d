package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// dpoLines runs a dpo export and decodes each line.
func dpoLines(t *testing.T, rs []*trajlog.Record, o export.Options) ([]export.DPOExample, *export.Report) {
	t.Helper()
	var buf bytes.Buffer
	o.Format = export.FormatDPO
	rep, err := export.Run(context.Background(), memReader(rs), trajlog.Filter{}, o, &buf)
	if err != nil {
		t.Fatal(err)
	}
	var out []export.DPOExample
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &keys); err != nil || len(keys) != 5 || keys["prompt"] == nil || keys["chosen"] == nil ||
			keys["rejected"] == nil || keys["tools"] == nil || keys["chat_template_kwargs"] == nil {
			t.Fatalf("dpo line is not {prompt, chosen, rejected, tools, chat_template_kwargs}: %s", sc.Bytes())
		}
		var ex export.DPOExample
		json.Unmarshal(sc.Bytes(), &ex)
		if want := fmt.Sprintf(`{"enable_thinking":%v}`, thinks(ex.Chosen, ex.Rejected)); string(keys["chat_template_kwargs"]) != want {
			t.Fatalf("chat_template_kwargs %s, want %s", keys["chat_template_kwargs"], want)
		}
		out = append(out, ex)
	}
	return out, rep
}

// submitted is the one-step completion of a submit of sql.
func submitted(sql string, turn string) []export.Message {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return []export.Message{{Role: "assistant", ToolCalls: []export.ToolCall{{ID: "call_" + turn + "_0", Type: "function",
		Function: export.FunctionCall{Name: "submit", Arguments: args}}}}}
}

// dpoPair is a pair of the test, with the kwargs its completions call
// for.
func dpoPair(prompt, chosen, rejected []export.Message, defs []schemas.Tool) export.DPOExample {
	return export.DPOExample{Prompt: prompt, Chosen: chosen, Rejected: rejected, Tools: defs,
		ChatTemplateKwargs: map[string]bool{"enable_thinking": thinks(chosen, rejected)}}
}

// thinks reports whether a message of the completions carries
// reasoning: the pair's enable_thinking.
func thinks(completions ...[]export.Message) bool {
	for _, c := range completions {
		for _, m := range c {
			if strings.TrimSpace(m.Reasoning()) != "" || strings.Contains(m.Content, "</think>") {
				return true
			}
		}
	}
	return false
}

func TestDPOPairsFieldByField(t *testing.T) {
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	rs := []*trajlog.Record{
		submit("a_mismatch", "demo/1", "SELECT 2", "mismatch", 0.1, at(0)),
		submit("a_correct_hi", "demo/1", "SELECT 12", "correct", 1.0, at(1)),
		submit("a_nosubmit", "demo/1", "SELECT 0", "no_submit", -0.2, at(2)),
		submit("a_correct_lo", "demo/1", "SELECT 12 ", "correct", 0.98, at(3)),
		submit("a_prederr", "demo/1", "SELEC", "pred_error", -0.1, at(4)),
		// Task 2: all alike, no pair.
		submit("b_1", "demo/2", "SELECT 1", "mismatch", 0, at(5)),
		submit("b_2", "demo/2", "SELECT 2", "mismatch", 0, at(6)),
		// Task 1 under another prompt: a group of its own.
		withPrompt(submit("c_correct", "demo/1", "SELECT 12", "correct", 1, at(7)), "other prompt"),
		withPrompt(submit("c_wrong", "demo/1", "SELECT 3", "mismatch", 0, at(8)), "other prompt"),
	}
	got, rep := dpoLines(t, rs, export.Options{})
	defs := tools.Definitions()
	want := []export.DPOExample{
		// Best with worst: correct 1.0 over no_submit; correct 0.98 over pred_error; the mismatch is left.
		dpoPair(export.Prompt(rs[0]), submitted("SELECT 12", "1"), submitted("SELECT 0", "1"), defs),
		dpoPair(export.Prompt(rs[0]), submitted("SELECT 12 ", "1"), submitted("SELEC", "1"), defs),
		dpoPair(export.Prompt(rs[7]), submitted("SELECT 12", "1"), submitted("SELECT 3", "1"), defs),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pairs:\n got %+v\nwant %+v", got, want)
	}
	if rep.Written != 3 || rep.Prompts != 3 || rep.Unpaired != 3 || rep.Kept != 9 {
		t.Errorf("report = %+v, want 3 pairs of 3 prompts, 3 unpaired, 9 kept", rep)
	}
	if got[2].Prompt[0].Content != "other prompt" {
		t.Errorf("pair of the other prompt has prompt %v", got[2].Prompt)
	}
	// --best-per-task bounds the pairs of each prompt, keeping the widest.
	got, _ = dpoLines(t, rs, export.Options{BestPerTask: 1})
	if len(got) != 2 || !reflect.DeepEqual(got[0].Rejected, submitted("SELECT 0", "1")) {
		t.Errorf("with one pair per prompt got %+v", got)
	}
}

func withPrompt(r *trajlog.Record, system string) *trajlog.Record {
	r.Messages = []schemas.Message{{Role: "system", Content: system}, prompt[1]}
	return r
}

// TestDPOCutsWhereTheChatsPart: the prompt is what both chats share,
// tool messages included, and each completion is the one assistant
// message where they part: never a tool message, nor the verdict.
func TestDPOCutsWhereTheChatsPart(t *testing.T) {
	rs := []*trajlog.Record{
		rec("good", "demo/1", "correct", 1, t0, callStep("execute_sql", `{"sql":"SELECT 1"}`, "1\n(1 row)"),
			callStep("submit", `{"sql":"SELECT 12"}`, "Submitted. Correct.")),
		submit("bad", "demo/1", "SELECT 2", "mismatch", 0, t0),
		episode("native_repair"), episode("native_no_call_later"),
	}
	rs[2].Task.TaskID, rs[3].Task.TaskID = "demo/9", "demo/9"
	got, _ := dpoLines(t, rs, export.Options{})
	if len(got) != 2 {
		t.Fatalf("%d pairs, want 2", len(got))
	}
	exec, _ := json.Marshal(map[string]string{"sql": "SELECT 1"})
	want := dpoPair(export.Prompt(rs[0]),
		[]export.Message{{Role: "assistant", ToolCalls: []export.ToolCall{{ID: "call_1_0", Type: "function", Function: export.FunctionCall{Name: "execute_sql", Arguments: exec}}}}},
		submitted("SELECT 2", "1"), tools.Definitions())
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("pair parting at the first reply:\n got %+v\nwant %+v", got[0], want)
	}
	// The native episodes share their first turn (the calls' ids differ): the prompt holds it and its tool messages.
	p := got[1]
	if len(p.Prompt) != 5 || p.Prompt[2].ToolCalls[0].ID != "chatcmpl-tool-7f3a" || p.Prompt[4].Role != "tool" {
		t.Errorf("shared prompt %+v, want system, user, the first turn and its two tool messages", p.Prompt)
	}
	if len(p.Chosen) != 1 || p.Chosen[0].ToolCalls[0].Function.Name != "execute_sql" || len(p.Rejected) != 1 || p.Rejected[0].Content != "Die Tabelle heißt books; es sind wohl 6." {
		t.Errorf("completions %+v and %+v, want the repair and the reply without a call", p.Chosen, p.Rejected)
	}
}

// TestDPOSkipsChatsThatNeverPart: a pair whose chats first differ in what
// came back, or of which one is the other's beginning, has no reply to
// prefer.
func TestDPOSkipsChatsThatNeverPart(t *testing.T) {
	rs := []*trajlog.Record{
		rec("a", "demo/1", "correct", 1, t0, callStep("execute_sql", `{"sql":"SELECT 1"}`, "1"), callStep("submit", `{"sql":"SELECT 1"}`, "Submitted. Correct.")),
		rec("b", "demo/1", "mismatch", 0, t0, callStep("execute_sql", `{"sql":"SELECT 1"}`, "timeout"), callStep("submit", `{"sql":"SELECT 2"}`, "Submitted. Wrong.")),
		rec("c", "demo/2", "correct", 1, t0, callStep("execute_sql", `{"sql":"SELECT 1"}`, "1"), callStep("submit", `{"sql":"SELECT 1"}`, "Submitted. Correct.")),
		rec("d", "demo/2", "no_submit", 0, t0, callStep("execute_sql", `{"sql":"SELECT 1"}`, "1")),
	}
	got, rep := dpoLines(t, rs, export.Options{})
	if len(got) != 0 || rep.Unpaired != 4 {
		t.Errorf("pairs %+v, report %+v; want none, 4 unpaired", got, rep)
	}
}

func TestBetter(t *testing.T) {
	mk := func(outcome string, r float64) *trajlog.Record {
		return &trajlog.Record{Trajectory: schemas.Trajectory{Outcome: outcome, TotalReward: r}}
	}
	tests := []struct {
		a, b *trajlog.Record
		want bool
	}{
		{mk("correct", 0.5), mk("mismatch", 0.9), true}, // correctness first
		{mk("mismatch", 0.9), mk("correct", 0.5), false},
		{mk("correct", 1), mk("correct", 0.9), true},
		{mk("mismatch", 0.1), mk("pred_error", -0.1), true},
		{mk("mismatch", 0), mk("mismatch", 0), false},
	}
	for i, tt := range tests {
		if got := export.Better(tt.a, tt.b); got != tt.want {
			t.Errorf("%d: Better = %v, want %v", i, got, tt.want)
		}
	}
}
