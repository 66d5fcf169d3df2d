package export

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// DropPromptStyle (sft and dpo, with Options.PromptStyle native): an
// episode played with the text prompt that holds a text action. Its
// turns follow the text prompt's call syntax (<tool_call> blocks, tags),
// so a native prompt above them would ask for one syntax while the
// turns show another; only episodes whose every turn was a native call
// (action.message, action.tool) are written with the native prompt.
const DropPromptStyle = "prompt-style"

// CheckPromptStyle checks Options.PromptStyle against the format: ""
// writes each episode's prompt as played; native re-renders text-style
// prompts, for sft and dpo.
func CheckPromptStyle(format, style string) error {
	switch {
	case style == "":
		return nil
	case style != schemas.PromptStyleNative:
		return fmt.Errorf("prompt style %q: an export re-renders prompts as native only (empty: as played)", style)
	case format == FormatRaw:
		return fmt.Errorf("raw writes the records as they were played, with no prompt style (got %q)", style)
	}
	return nil
}

// restyle is rec with its system prompt written as native, or "" and
// DropPromptStyle when its turns do not allow it. An episode played
// native, or with no system message, is rec itself.
func restyle(rec *trajlog.Record) (*trajlog.Record, string) {
	if rec.PromptStyle == schemas.PromptStyleNative || len(rec.Messages) == 0 || rec.Messages[0].Role != "system" {
		return rec, ""
	}
	for _, st := range rec.Steps {
		if st.Action.Text != nil {
			return nil, DropPromptStyle
		}
	}
	out := *rec
	out.PromptStyle = schemas.PromptStyleNative
	out.Messages = append([]schemas.Message(nil), rec.Messages...)
	out.Messages[0].Content = tools.RecordedSystemPrompt(&rec.Trajectory, schemas.PromptStyleNative)
	return &out, ""
}

// native reports whether rec's prompt is native: its tools are the chat
// template's to show, so its rows carry tools= even without a call.
func native(rec *trajlog.Record) bool { return rec.PromptStyle == schemas.PromptStyleNative }

// withToolList gives a native episode's chat the tool list its template
// does not write: DeepSeek-V3's templates never read tools=
// (deepseekv3.jinja and deepseekv3_training.jinja at TRL f2cd577 render
// the system messages, then the turns), so rows for them (ChatOptions.
// Template) carry the definitions in the system message, as JSON, with
// no call syntax. Other rows are msgs as they are: their template writes
// tools= itself, and a text-style prompt lists the tools already.
func withToolList(msgs []Message, defs []schemas.Tool, rec *trajlog.Record, o ChatOptions) []Message {
	if len(defs) == 0 || rec.PromptStyle != schemas.PromptStyleNative || len(msgs) == 0 || msgs[0].Role != "system" ||
		strings.TrimSuffix(o.Template, "_training") != "deepseekv3" {
		return msgs
	}
	var b strings.Builder
	b.WriteString(msgs[0].Content + "\n\nThe functions you can call, as JSON schemas:")
	for _, d := range defs {
		line, _ := json.Marshal(d)
		b.WriteString("\n" + string(line))
	}
	out := append([]Message(nil), msgs...)
	out[0].Content = b.String()
	return out
}
