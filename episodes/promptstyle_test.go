package episodes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestPromptStyleChosenByReset: a reset's prompt_style chooses the
// system prompt, episode.get and the recorded begin line show it (a text
// episode's is absent), and an unknown style is refused naming the
// styles.
func TestPromptStyleChosenByReset(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	ctx := context.Background()
	text := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	native := reset(t, c, schemas.ResetParams{TaskID: "t/count", PromptStyle: schemas.PromptStyleNative})
	if sys := text.Messages[0].Content; !strings.Contains(sys, "<tool_call>") || !strings.Contains(sys, "execute_sql {") {
		t.Errorf("the text prompt lacks its call syntax or its tools:\n%s", sys)
	}
	if sys := native.Messages[0].Content; strings.Contains(sys, "<tool_call>") || strings.Contains(sys, "execute_sql") {
		t.Errorf("the native prompt holds a call syntax or a tool:\n%s", sys)
	}
	if len(native.Tools) != 3 || native.Messages[1] != text.Messages[1] {
		t.Errorf("native reset: tools %d, user message %q; want the three tools and the text episode's question", len(native.Tools), native.Messages[1].Content)
	}
	for id, want := range map[string]string{text.EpisodeID: "", native.EpisodeID: schemas.PromptStyleNative} {
		got, err := c.Episode(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.PromptStyle != want || got.MaxCallsPerTurn != episodes.DefaultMaxCallsPerTurn {
			t.Errorf("episode.get: prompt_style %q, max_calls_per_turn %d; want %q and %d", got.PromptStyle, got.MaxCallsPerTurn, want, episodes.DefaultMaxCallsPerTurn)
		}
		if _, err := c.CloseEpisode(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if rec := string(h.recorded()); strings.Count(rec, `"prompt_style":"native"`) != 1 || strings.Count(rec, `"prompt_style"`) != 1 {
		t.Errorf("the log holds prompt_style otherwise than once, as native:\n%s", rec)
	}
	_, err := c.Reset(ctx, schemas.ResetParams{TaskID: "t/count", PromptStyle: "json"})
	if rpcCode(err) != -32602 || !strings.Contains(err.Error(), `prompt_style must be "text" or "native", got "json"`) {
		t.Errorf("unknown style: %v, want -32602 naming the styles", err)
	}
}

// TestPromptStyleDefaults: a reset that names no style gets its
// dataset's, else the server's; server.info reports both.
func TestPromptStyleDefaults(t *testing.T) {
	for _, tt := range []struct {
		server, dataset, want string
	}{
		{schemas.PromptStyleNative, "", schemas.PromptStyleNative},
		{schemas.PromptStyleNative, schemas.PromptStyleText, schemas.PromptStyleText},
		{"", schemas.PromptStyleNative, schemas.PromptStyleNative},
	} {
		h := newHarness(t, options{cfg: func(c *episodes.Config) {
			c.PromptStyle = tt.server
			if tt.dataset != "" {
				c.DatasetPromptStyles = map[string]string{"t": tt.dataset}
			}
		}})
		c := h.dial()
		info, err := c.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		server := tt.server
		if server == "" {
			server = schemas.PromptStyleText
		}
		if info.PromptStyle != server || info.Datasets[0].PromptStyle != tt.dataset {
			t.Errorf("server.info: prompt_style %q, dataset's %q; want %q and %q", info.PromptStyle, info.Datasets[0].PromptStyle, server, tt.dataset)
		}
		r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
		if native := !strings.Contains(r.Messages[0].Content, "<tool_call>"); native != (tt.want == schemas.PromptStyleNative) {
			t.Errorf("server %q, dataset %q: the prompt is native %v, want style %s", tt.server, tt.dataset, native, tt.want)
		}
	}
}

// TestPromptStyleConfigChecked: a style that is none, or one for a
// dataset not served, fails New.
func TestPromptStyleConfigChecked(t *testing.T) {
	for _, cfg := range []episodes.Config{
		{PromptStyle: "chat"},
		{DatasetPromptStyles: map[string]string{"t": "chat"}},
		{DatasetPromptStyles: map[string]string{"nosuch": schemas.PromptStyleNative}},
	} {
		cfg.Datasets = []*env.Dataset{{Name: "t", Dialect: env.SQLite}}
		if _, err := episodes.New(cfg); err == nil || !strings.Contains(err.Error(), "prompt style") {
			t.Errorf("New(%+v) = %v, want a prompt style error", cfg.DatasetPromptStyles, err)
		}
	}
}
