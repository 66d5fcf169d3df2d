package tools

import (
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestSystemPromptIsBuiltOnce: the system message kept for a dialect,
// format, turn budget and tool set is the one built for them, and the
// user message is each task's own.
func TestSystemPromptIsBuiltOnce(t *testing.T) {
	sets := []Set{DefaultSet()}
	for _, names := range [][]string{{schemas.ToolSubmit}, {schemas.ToolExecuteSQL, schemas.ToolSubmit}} {
		s, err := NewSet(names)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, s)
	}
	for _, d := range []env.Dialect{env.SQLite, env.Postgres} {
		for _, f := range []string{schemas.FormatHermes, schemas.FormatTags} {
			for _, turns := range []int{1, 5, 8} {
				for _, set := range sets {
					want := buildSystemPrompt(d, f, turns, set)
					for i, q := range []string{"How many?", "Which one?"} {
						msgs := PromptTools(&env.Task{Question: q}, d, f, turns, set)
						if msgs[0].Content != want || msgs[1].Content != q {
							t.Fatalf("%s %s %d %v, call %d: got %q / %q", d, f, turns, set.Names(), i, msgs[0].Content, msgs[1].Content)
						}
					}
				}
			}
		}
	}
}

// TestSystemPromptsKeptAreBounded: clients choose the turn budget, so the
// prompts kept stop at maxCachedPrompts; those past it are still right.
func TestSystemPromptsKeptAreBounded(t *testing.T) {
	for turns := 1; turns <= maxCachedPrompts+100; turns++ {
		got := PromptTools(&env.Task{Question: "q"}, env.SQLite, schemas.FormatHermes, turns, DefaultSet())[0].Content
		if want := buildSystemPrompt(env.SQLite, schemas.FormatHermes, turns, DefaultSet()); got != want {
			t.Fatalf("turns %d: got %q, want %q", turns, got, want)
		}
	}
	prompts.Lock()
	n := len(prompts.m)
	prompts.Unlock()
	if n > maxCachedPrompts {
		t.Errorf("%d prompts kept, at most %d allowed", n, maxCachedPrompts)
	}
}
