package export_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/testkit/consumers"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// nativeEpisodes are the realistic episodes whose every turn was a
// native call (a message, or a call the client parsed), played as a
// native episode is: the server's native system prompt, the bound of
// calls per turn recorded.
func nativeEpisodes() []*trajlog.Record {
	var out []*trajlog.Record
	for _, r := range realistic() {
		if hasTextAction(r) {
			continue
		}
		r.PromptStyle, r.MaxCallsPerTurn = schemas.PromptStyleNative, 8
		r.Messages = []schemas.Message{{Role: "system", Content: tools.RecordedSystemPrompt(&r.Trajectory, schemas.PromptStyleNative)},
			r.Messages[len(r.Messages)-1]}
		out = append(out, r)
	}
	return out
}

// textEpisodes are the realistic episodes played with the server's text
// prompt.
func textEpisodes() []*trajlog.Record {
	rs := realistic()
	for _, r := range rs {
		r.Messages = []schemas.Message{{Role: "system", Content: tools.RecordedSystemPrompt(&r.Trajectory, schemas.PromptStyleText)},
			r.Messages[len(r.Messages)-1]}
	}
	return rs
}

// exportReport runs an export of rs and returns its report and lines.
func exportReport(t *testing.T, rs []*trajlog.Record, o export.Options) (*export.Report, [][]byte) {
	t.Helper()
	var buf bytes.Buffer
	rep, err := export.Run(context.Background(), memReader(rs), trajlog.Filter{}, o, &buf)
	if err != nil {
		t.Fatal(err)
	}
	return rep, bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
}

func hasTextAction(r *trajlog.Record) bool {
	for _, st := range r.Steps {
		if st.Action.Text != nil {
			return true
		}
	}
	return false
}

// templateOptions are the chat options a template's rows take: its
// argument shape, one call per message where it holds one, and its
// reasoning key.
func templateOptions(tpl consumers.Template) export.ChatOptions {
	o := export.ChatOptions{Target: "trl", Arguments: "object", Template: tpl.Name,
		SplitCalls: tpl.OneCall != "" || tpl.FirstCallOnly != ""}
	if tpl.Args == consumers.ArgsString {
		o.Arguments = "string"
	}
	return o
}

// promptFailure is the first chat of rows whose prompt tpl shows
// otherwise than once, with call syntax, or that tpl refuses.
func promptFailure(t *testing.T, tpl consumers.Template, lines [][]byte) error {
	t.Helper()
	for i, row := range decodeLines(t, lines) {
		msgs, tls := messagesOf(row["messages"]), asList(row["tools"])
		if err := tpl.CheckChat(msgs, tls); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		if err := tpl.CheckPrompt(msgs, tls); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	return nil
}

// pairPromptFailure is promptFailure for dpo pairs: each prompt with
// its chosen and its rejected reply.
func pairPromptFailure(t *testing.T, tpl consumers.Template, lines [][]byte) error {
	t.Helper()
	if len(lines) == 0 || len(lines[0]) == 0 {
		return fmt.Errorf("no pair")
	}
	for i, row := range decodeLines(t, lines) {
		for _, side := range []string{"chosen", "rejected"} {
			msgs := append(messagesOf(row["prompt"]), messagesOf(row[side])...)
			if err := tpl.CheckPrompt(msgs, asList(row["tools"])); err != nil {
				return fmt.Errorf("pair %d, %s: %w", i, side, err)
			}
		}
	}
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestNativeRowsShowToolsOnce is the acceptance of the native prompt
// style: sft rows of native episodes, and of text-style episodes
// re-rendered with --prompt-style native, render in every template of
// docs/trajectories-offline.md's table with no call-syntax instruction
// in the system prompt and the tools shown once: by the template's
// tools=, or, for DeepSeek-V3's templates, which never read tools=, by
// the system prompt alone. The same episodes as played with the text
// prompt show the tools twice and ask for <tool_call> (the check can
// fail). A text-style episode with a text action is not re-rendered:
// its turns keep the text prompt's syntax, and it is dropped as
// prompt-style. dpo pairs of native episodes show their tools once too.
func TestNativeRowsShowToolsOnce(t *testing.T) {
	natives := nativeEpisodes()
	if len(natives) < 5 {
		t.Fatalf("%d native episodes in the realistic log", len(natives))
	}
	texts := 0
	for _, r := range realistic() {
		if hasTextAction(r) {
			texts++
		}
	}
	for _, tpl := range consumers.Templates() {
		o := templateOptions(tpl)
		lines := exportLines(t, natives, export.Options{Format: "sft", Chat: o})
		if err := promptFailure(t, tpl, lines); err != nil {
			t.Errorf("%s: native episodes: %v", tpl.Name, err)
		}
		rep, restyled := exportReport(t, textEpisodes(), export.Options{Format: "sft", Chat: o, PromptStyle: schemas.PromptStyleNative})
		if rep.Dropped[export.DropPromptStyle] != texts || len(restyled) == 0 {
			t.Errorf("%s: --prompt-style native dropped %d as prompt-style, wrote %d; want the %d with a text action dropped",
				tpl.Name, rep.Dropped[export.DropPromptStyle], len(restyled), texts)
		}
		if err := promptFailure(t, tpl, restyled); err != nil {
			t.Errorf("%s: re-rendered episodes: %v", tpl.Name, err)
		}
		if err := pairPromptFailure(t, tpl, exportLines(t, natives, export.Options{Format: "dpo", Chat: o})); err != nil {
			t.Errorf("%s: dpo pairs of native episodes: %v", tpl.Name, err)
		}
		asPlayed := exportLines(t, textEpisodes(), export.Options{Format: "sft", Chat: o})
		if err := promptFailure(t, tpl, asPlayed); err == nil {
			t.Errorf("%s: the text-style rows pass the prompt check", tpl.Name)
		}
	}
}
