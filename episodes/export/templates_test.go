package export_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/export"
)

// The rules every chat of an sft or dpo export keeps, whatever reads it
// (the templates' own rules are in internal/testkit/consumers: Template):
//
//  1. An assistant turn is written once: a message with tool_calls does
//     not also hold a call as text in its content (a Qwen or Hermes
//     template would render it twice, in the loss).
//  2. Every call gets one tool message, answering its id, before the next
//     assistant or user message; a tool message answers a call.
//  3. The environment's text (observations, verdicts, format errors) is
//     in tool and user messages only, and assistant messages hold only
//     what the model wrote: the _training templates put every assistant
//     message, and nothing else, in {% generation %} (Template.Generation),
//     so the loss covers exactly the model's text.
//  4. The chat ends on an assistant message.
//  5. Arguments are encoded once: an object, or a string that decodes to
//     an object (whose values are not themselves JSON-encoded objects).

// checkChatRules returns the first of the rules above msgs breaks.
func checkChatRules(msgs []map[string]any, env []string) error {
	var open []string
	for i, m := range msgs {
		content, _ := m["content"].(string)
		calls, _ := m["tool_calls"].([]any)
		if m["role"] != "tool" && len(open) > 0 {
			return fmt.Errorf("rule 2: message %d (%v): calls %v unanswered", i, m["role"], open)
		}
		switch m["role"] {
		case "assistant":
			if len(calls) > 0 && (strings.Contains(content, "<tool_call>") || strings.Contains(content, "<sql>") || strings.Contains(content, "<solution>")) {
				return fmt.Errorf("rule 1: message %d holds a call in its content and in tool_calls", i)
			}
			for _, e := range env {
				if strings.Contains(content, e) {
					return fmt.Errorf("rule 3: message %d, the model's, holds the environment's %q", i, e)
				}
			}
			for _, c := range calls {
				call := c.(map[string]any)
				open = append(open, call["id"].(string))
				if err := checkEncodedOnce(call["function"].(map[string]any)["arguments"]); err != nil {
					return fmt.Errorf("rule 5: message %d: %v", i, err)
				}
			}
		case "tool":
			id, _ := m["tool_call_id"].(string)
			j := slices.Index(open, id)
			if j < 0 {
				return fmt.Errorf("rule 2: message %d answers %v, not one of the open calls %v", i, m["tool_call_id"], open)
			}
			open = slices.Delete(open, j, j+1)
		}
	}
	if last := msgs[len(msgs)-1]; last["role"] != "assistant" {
		return fmt.Errorf("rule 4: the chat ends on a %v message", last["role"])
	}
	return nil
}

// checkEncodedOnce is rule 5 for one call's arguments.
func checkEncodedOnce(args any) error {
	if s, ok := args.(string); ok {
		if err := json.Unmarshal([]byte(s), &args); err != nil {
			return fmt.Errorf("arguments string %q is not JSON", s)
		}
	}
	obj, ok := args.(map[string]any)
	if !ok {
		return fmt.Errorf("arguments %v are not an object", args)
	}
	for k, v := range obj {
		if s, ok := v.(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") && json.Valid([]byte(s)) {
			return fmt.Errorf("argument %s holds JSON encoded again: %s", k, s)
		}
	}
	return nil
}

// environmentText is what the environment wrote in the episodes: every
// observation (each call's, and each step's).
func environmentText(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, r := range realistic() {
		for _, st := range r.Steps {
			texts := []string{st.Observation}
			for _, c := range st.CallList() {
				texts = append(texts, c.Observation)
			}
			for _, s := range texts {
				if len(s) > 8 {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// lines decodes JSON lines.
func decodeLines(t *testing.T, lines [][]byte) []map[string]any {
	t.Helper()
	out := make([]map[string]any, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal(l, &out[i]); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	return out
}

// messagesOf is v (a list of message objects) as a list of maps.
func messagesOf(v any) []map[string]any {
	list, _ := v.([]any)
	out := make([]map[string]any, len(list))
	for i, m := range list {
		out[i], _ = m.(map[string]any)
	}
	return out
}

// chat is one rendering a trainer asks of a chat template.
type chat struct {
	msgs  []map[string]any
	tools []any
}

// exportFor runs an export of the realistic log with o.
func exportFor(t *testing.T, o export.Options) [][]byte {
	t.Helper()
	return exportLines(t, realistic(), o)
}
