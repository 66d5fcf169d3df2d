package tools

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestPromptGolden(t *testing.T) {
	spider := &env.Task{ID: "spider-dev/4", DBID: "concert_singer",
		Question: "What is the average, minimum, and maximum age of all singers from France?"}
	bird := &env.Task{ID: "bird-dev/1", DBID: "california_schools",
		Question: "What is the highest eligible free rate for K-12 students in the schools in Alameda County?",
		Evidence: "Eligible free rate for K-12 = `Free Meal Count (K-12)` / `Enrollment (K-12)`"}
	tests := []struct {
		name     string
		task     *env.Task
		dialect  env.Dialect
		format   string
		maxTurns int
	}{
		{"prompt_hermes_sqlite", spider, "sqlite", schemas.FormatHermes, 8},
		{"prompt_tags_sqlite", bird, "sqlite", schemas.FormatTags, 1},
		{"prompt_tags_postgres", spider, "postgres", schemas.FormatTags, 5},
		{"prompt_hermes_postgres", bird, "postgres", schemas.FormatHermes, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := Prompt(tt.task, tt.dialect, tt.format, tt.maxTurns)
			if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
				t.Fatalf("messages = %+v, want a system and a user message", msgs)
			}
			golden(t, tt.name, msgs[0].Content+"\n-----\n"+msgs[1].Content+"\n")
		})
	}
}

func TestPromptContent(t *testing.T) {
	task := &env.Task{Question: "How many singers?", Evidence: " singers are in table singer "}
	tests := []struct {
		dialect     env.Dialect
		format      string
		turns       int
		has, hasNot []string
	}{
		{"sqlite", "hermes", 8, []string{"SQLite SQL", "<tool_call>", "inspect_schema", "You have 8 turns"}, []string{"<solution>", "PostgreSQL"}},
		{"postgres", "tags", 3, []string{"PostgreSQL SQL", "<sql>", "<solution>", "information_schema.columns", "You have 3 turns"}, []string{"<tool_call>", "sqlite_master"}},
		{"sqlite", "tags", 2, []string{"sqlite_master"}, []string{"<tool_call>"}},
		{"sqlite", "bogus", 2, []string{"<tool_call>"}, []string{"<solution>"}},
	}
	for _, tt := range tests {
		msgs := Prompt(task, tt.dialect, tt.format, tt.turns)
		for _, s := range tt.has {
			if !strings.Contains(msgs[0].Content, s) {
				t.Errorf("%s/%s: system message lacks %q", tt.dialect, tt.format, s)
			}
		}
		for _, s := range tt.hasNot {
			if strings.Contains(msgs[0].Content, s) {
				t.Errorf("%s/%s: system message holds %q", tt.dialect, tt.format, s)
			}
		}
		if want := "How many singers?\n\nExternal knowledge: singers are in table singer"; msgs[1].Content != want {
			t.Errorf("user message = %q, want %q", msgs[1].Content, want)
		}
	}
	if got := Prompt(&env.Task{Question: "Q?"}, "sqlite", "hermes", 3)[1].Content; got != "Q?" {
		t.Errorf("user message without evidence = %q", got)
	}
}

// TestPromptExampleParses checks that the call the hermes prompt shows
// parses and decodes.
func TestPromptExampleParses(t *testing.T) {
	sys := Prompt(&env.Task{Question: "Q"}, "sqlite", "hermes", 4)[0].Content
	c, _, err := ParseText(schemas.FormatHermes, sys[strings.Index(sys, "<tool_call>"):])
	if err != nil {
		t.Fatalf("the prompt's example does not parse: %s", err.Message)
	}
	if _, te := Decode(c); te != nil {
		t.Fatalf("the prompt's example does not decode: %s", te.Message)
	}
}
