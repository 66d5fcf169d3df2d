package rollout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
)

// TestTeacherHintsStayOutOfSFT runs a teacher with the gold result and the
// gold SQL as hints: the model is sent them, the episodes' tags keep them,
// and an sft export of the run holds none of their text.
func TestTeacherHintsStayOutOfSFT(t *testing.T) {
	w := newWorld(t)
	gold := w.gold(t, taskC)
	answer := "select COUNT(*) from patients p where p.email is null"
	m := newStubModel(t, map[string][][]reply{
		w.question(t, taskC): {{call("execute_sql", answer), call("submit", answer)}, {call("submit", answer)}},
	})
	ctx := context.Background()
	h := &rollout.Hinter{Kinds: []string{rollout.HintGoldResult, rollout.HintGoldSQL}, Catalog: w.catalog, Runner: w.runner}
	task, _ := w.ds.Task(taskC)
	hints, err := h.Hints(ctx, w.ds, task)
	if err != nil || hints[rollout.HintGoldSQL] != gold || !strings.Contains(hints[rollout.HintGoldResult], "(1 row)") {
		t.Fatalf("hints %v, %v", hints, err)
	}
	cfg := rollout.Config{Env: w.env, Chat: m.chat(t), Run: "teacher", Model: "stub-model", Concurrency: 2,
		Hints: func(ctx context.Context, id string) (rollout.Hints, error) { return h.Hints(ctx, w.ds, task) }}
	if sum := rollout.Run(ctx, cfg, rollout.Plan([]string{taskC}, 2, nil)); sum.Finished != 2 {
		t.Fatalf("summary %+v, want 2 finished", sum)
	}
	if !strings.Contains(string(m.requests()[0]), jsonText(t, hints.Prompt())) {
		t.Fatalf("the model was not sent the hints:\n%s", m.requests()[0])
	}
	eps := w.episodes(t, "teacher", false)
	for _, ep := range eps {
		if !bytes.Contains(ep.Tags, []byte(`"teacher_hints"`)) || strings.Contains(ep.Messages[0].Content, "Privileged") {
			t.Errorf("episode %s: hints not kept apart: tags %s, system prompt %q", ep.EpisodeID, ep.Tags, ep.Messages[0].Content)
		}
	}
	var out bytes.Buffer
	rep, err := export.Run(ctx, w.log, trajlog.Filter{Tags: map[string]string{rollout.TagRun: "teacher"}},
		export.Options{Format: export.FormatSFT, Outcome: "correct", BestPerTask: 1, Dedup: true}, &out)
	if err != nil || rep.Written != 1 {
		t.Fatalf("export wrote %+v, %v; want 1 line", rep, err)
	}
	text := out.String()
	if !strings.Contains(text, jsonText(t, w.question(t, taskC))) {
		t.Fatalf("the export lacks the student's question:\n%s", text)
	}
	for _, leak := range []string{"Privileged", "expected result", jsonText(t, gold), jsonText(t, hints[rollout.HintGoldResult])} {
		if strings.Contains(text, leak) {
			t.Errorf("the sft export holds hint text %q:\n%s", leak, text)
		}
	}
}

// jsonText is s as it reads inside a JSON string.
func jsonText(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(strings.TrimSpace(b.String())[1:], `"`)
}

// TestTextToolCalling sends no tools and the whole completion as a text
// action in the tags format; observations come back as user turns.
func TestTextToolCalling(t *testing.T) {
	w := newWorld(t)
	a := w.gold(t, taskA)
	m := newStubModel(t, map[string][][]reply{
		w.question(t, taskA): {{{text: "<sql>SELECT count(*) FROM books</sql>"}, {text: "<solution>" + a + "</solution>"}}},
	})
	cfg := rollout.Config{Env: w.env, Chat: m.chat(t), Run: "text", Model: "stub-model",
		ToolCalling: rollout.ToolCallingText, ActionFormat: "tags"}
	sum := rollout.Run(context.Background(), cfg, rollout.Plan([]string{taskA}, 1, nil))
	if sum.Finished != 1 {
		t.Fatalf("summary %+v", sum)
	}
	eps := w.episodes(t, "text", false)
	if len(eps) != 1 || eps[0].Outcome != "correct" || eps[0].ActionFormat != "tags" || len(eps[0].Steps) != 2 || eps[0].PromptStyle != "" {
		t.Fatalf("episodes %+v", eps)
	}
	reqs := m.requests()
	var last rollout.ChatRequest
	json.Unmarshal(reqs[len(reqs)-1], &last)
	roles := ""
	for _, msg := range last.Messages {
		roles += msg.Role[:1]
	}
	if len(last.Tools) != 0 || roles != "suau" {
		t.Errorf("text mode sent tools %s and roles %q, want none and system, user, assistant, user", last.Tools, roles)
	}
}
