package tools

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestNativePromptGolden: the native style's system message, for SQLite
// with every tool and for MySQL with submit alone.
func TestNativePromptGolden(t *testing.T) {
	task := &env.Task{Question: "What is the average, minimum, and maximum age of all singers from France?"}
	sqlite := PromptFor(task, PromptSpec{Dialect: env.SQLite, Style: schemas.PromptStyleNative, MaxTurns: 8,
		Tools: AllSet(), RowLimit: 50, MaxCalls: 8})
	golden(t, "prompt_native_sqlite", sqlite[0].Content+"\n-----\n"+sqlite[1].Content+"\n")
	only, err := NewSet([]string{schemas.ToolSubmit})
	if err != nil {
		t.Fatal(err)
	}
	mysql := PromptFor(task, PromptSpec{Dialect: env.MySQL, Style: schemas.PromptStyleNative, MaxTurns: 1, Tools: only})
	golden(t, "prompt_native_mysql_submit", mysql[0].Content+"\n")
}

// TestNativePromptNamesNoTool: whatever the format, dialect and tools,
// the native system message holds no call syntax and names no tool, and
// states the environment's rules it is given; the user message is the
// text style's.
func TestNativePromptNamesNoTool(t *testing.T) {
	task := &env.Task{Question: "How many singers?", Evidence: "singers are in table singer"}
	for _, d := range []env.Dialect{env.SQLite, env.Postgres, env.MySQL} {
		for _, f := range []string{schemas.FormatHermes, schemas.FormatTags} {
			spec := PromptSpec{Dialect: d, Format: f, Style: schemas.PromptStyleNative, MaxTurns: 6, Tools: AllSet(), RowLimit: 20, MaxCalls: 2}
			msgs := PromptFor(task, spec)
			sys := msgs[0].Content
			for _, bad := range append([]string{"<tool_call>", "<sql>", "<solution>", "\"arguments\"", "Tools:", "Actions:"}, Names()...) {
				if bad != schemas.ToolSubmit && strings.Contains(sys, bad) {
					t.Errorf("%s/%s: the native system message holds %q:\n%s", d, f, bad, sys)
				}
			}
			for _, want := range []string{d.Title() + " SQL", "You have 6 turns", "first 20 rows", "at most 2 calls", "submit your final query"} {
				if !strings.Contains(sys, want) {
					t.Errorf("%s/%s: the native system message lacks %q:\n%s", d, f, want, sys)
				}
			}
			if text := PromptTools(task, d, f, 6, AllSet()); msgs[1] != text[1] || msgs[0] == text[0] {
				t.Errorf("%s/%s: the user messages differ, or the system messages do not", d, f)
			}
		}
	}
}

// TestValidPromptStyle: the styles schemas lists are the valid ones.
func TestValidPromptStyle(t *testing.T) {
	for _, s := range schemas.PromptStyles() {
		if !ValidPromptStyle(s) {
			t.Errorf("%q is not valid", s)
		}
	}
	for _, s := range []string{"", "Native", "json"} {
		if ValidPromptStyle(s) {
			t.Errorf("%q is valid", s)
		}
	}
}
