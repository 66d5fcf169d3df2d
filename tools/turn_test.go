package tools

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

func TestParseTurnHermes(t *testing.T) {
	tests := []struct {
		name, text string
		calls      []string // "name args" of each call, or "error: part of its message"
		content    string
	}{
		{name: "one call", text: "Let me look.\n<tool_call>\n{\"name\": \"inspect_schema\", \"arguments\": {}}\n</tool_call>",
			calls: []string{"inspect_schema {}"}, content: "Let me look."},
		{name: "two calls with text between and after",
			text: "I will look first.\n<tool_call>{\"name\": \"inspect_schema\", \"arguments\": {}}</tool_call>\nthen count\n" +
				"<tool_call>{\"name\": \"execute_sql\", \"arguments\": {\"sql\": \"SELECT 1\"}}</tool_call>\nDone.",
			calls: []string{"inspect_schema {}", `execute_sql {"sql": "SELECT 1"}`}, content: "I will look first.\n\nthen count\n\nDone."},
		{name: "think kept in the content, its calls not run",
			text:  "<think>maybe <tool_call>{\"name\":\"submit\"}</tool_call></think>\n<tool_call>{\"name\":\"inspect_schema\"}</tool_call>",
			calls: []string{"inspect_schema "}, content: "<think>maybe <tool_call>{\"name\":\"submit\"}</tool_call></think>"},
		{name: "think opened by the template",
			text:  "reasoning <tool_call>{\"name\":\"submit\"}</tool_call>\n</think>\n\n<tool_call>{\"name\":\"inspect_schema\",\"arguments\":{}}</tool_call>",
			calls: []string{"inspect_schema {}"}, content: "reasoning <tool_call>{\"name\":\"submit\"}</tool_call>\n</think>"},
		{name: "a malformed block among good ones",
			text:  "<tool_call>{\"name\":\"inspect_schema\",\"arguments\":{}}</tool_call><tool_call>{\"name\": </tool_call><tool_call>{\"name\":\"submit\",\"arguments\":{\"sql\":\"SELECT 1\"}}",
			calls: []string{"inspect_schema {}", "error: does not hold valid JSON", `submit {"sql":"SELECT 1"}`}},
		{name: "unclosed before the next block",
			text:  "<tool_call>{\"name\":\"inspect_schema\",\"arguments\":{}}\n<tool_call>{\"name\":\"submit\",\"arguments\":{\"sql\":\"SELECT 2\"}}</tool_call>",
			calls: []string{"inspect_schema {}", `submit {"sql":"SELECT 2"}`}},
		{name: "unclosed before a think block",
			text:  "<tool_call>{\"name\":\"inspect_schema\",\"arguments\":{}}\n<think>hm</think>ok",
			calls: []string{"inspect_schema {}"}, content: "<think>hm</think>ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn, err := ParseTurn(schemas.FormatHermes, tt.text)
			if err != nil {
				t.Fatalf("ParseTurn error: %s", err.Message)
			}
			if len(turn.Calls) != len(tt.calls) || turn.Content != tt.content || turn.Extra != 0 {
				t.Fatalf("got %d calls, content %q, extra %d; want %d calls, content %q", len(turn.Calls), turn.Content, turn.Extra, len(tt.calls), tt.content)
			}
			for i, want := range tt.calls {
				pc := turn.Calls[i]
				if msg, ok := strings.CutPrefix(want, "error: "); ok {
					if pc.Err == nil || pc.Err.Code != schemas.ErrCodeFormat || !strings.Contains(pc.Err.Message, msg) {
						t.Errorf("call %d = %+v, want a format error containing %q", i, pc, msg)
					}
					continue
				}
				if got := pc.Call.Name + " " + string(pc.Call.Arguments); pc.Err != nil || got != want {
					t.Errorf("call %d = %q (error %+v), want %q", i, got, pc.Err, want)
				}
			}
		})
	}
}

func TestParseTurnErrors(t *testing.T) {
	for _, tt := range []struct{ format, text, msg string }{
		{schemas.FormatHermes, "The answer is 42.", "no tool call found"},
		{schemas.FormatHermes, "<think>I should <tool_call>{\"name\":\"submit\"}</tool_call>", "the <think> block is never closed"},
		{schemas.FormatTags, "SELECT 1", "no action found"},
		{"json", "<sql>SELECT 1</sql>", `unknown action format "json"`},
	} {
		_, err := ParseTurn(tt.format, tt.text)
		if err == nil || err.Code != schemas.ErrCodeFormat || !strings.Contains(err.Message, tt.msg) {
			t.Errorf("ParseTurn(%s, %q) error = %+v, want a format error containing %q", tt.format, tt.text, err, tt.msg)
		}
	}
}

// TestParseTurnTags checks that the tags format keeps one call a turn:
// its first tag, and the others counted as extra.
func TestParseTurnTags(t *testing.T) {
	turn, err := ParseTurn(schemas.FormatTags, "I look.\n<sql>SELECT 1</sql><solution>SELECT 2</solution>")
	if err != nil || len(turn.Calls) != 1 || turn.Calls[0].Call.Name != schemas.ToolExecuteSQL || turn.Extra != 1 || turn.Content != "" {
		t.Fatalf("ParseTurn(tags) = %+v, %+v; want one execute_sql call and one extra", turn, err)
	}
}

// FuzzParseTurnHermes checks that ParseTurn and ParseText agree: the
// turn's first call is ParseText's, and its other calls are ParseText's
// extra.
func FuzzParseTurnHermes(f *testing.F) {
	for _, s := range []string{
		"a<tool_call>{\"name\":\"x\"}</tool_call>b<tool_call>{\"name\":\"y\"}",
		"<think>x</think><tool_call>\n```json\n{\"name\":\"inspect_schema\"}\n```\n</tool_call><tool_call>",
		"</think><tool_call>{}<think></tool_call>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		turn, terr := ParseTurn(schemas.FormatHermes, text)
		c, extra, err := ParseText(schemas.FormatHermes, text)
		if terr != nil {
			if err == nil || err.Message != terr.Message {
				t.Fatalf("ParseTurn error %+v, ParseText %+v", terr, err)
			}
			return
		}
		first := turn.Calls[0]
		if len(turn.Calls) != extra+1 || (first.Err == nil) != (err == nil) || first.Call.Name != c.Name || string(first.Call.Arguments) != string(c.Arguments) {
			t.Fatalf("ParseTurn = %+v, ParseText = %+v extra %d error %+v", turn, c, extra, err)
		}
	})
}
