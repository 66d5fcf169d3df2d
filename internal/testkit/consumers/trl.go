package consumers

import (
	"fmt"
	"slices"
)

// The TRL rules come from huggingface/trl at
// f2cd57710ae345ea6428ae95363267fcf38a3dc8 (1.9.0 and 26 commits).

// Chat is what a TRL trainer hands the chat template for one example.
type Chat struct {
	Messages []map[string]any // SFT: messages; DPO: prompt + chosen
	Rejected []map[string]any // DPO: prompt + rejected
	Tools    []any            // tools=; nil when the line has none
	// DPO: the prompt, each completion alone, and the keyword arguments
	// every rendering gets.
	Prompt, Chosen, RejectedOnly []map[string]any
	Kwargs                       map[string]any
}

// TRLSFT loads one line of an sft file as SFTTrainer does.
func TRLSFT(line []byte) (*Chat, error) {
	ex, tools, err := trlExample(line)
	if err != nil {
		return nil, err
	}
	msgs, err := conversational(ex, "messages")
	if err != nil {
		return nil, err
	}
	if err := trlToolCalls(msgs); err != nil {
		return nil, err
	}
	if tools == nil && callsIn(msgs) {
		return nil, fmt.Errorf("the chat calls tools but has no tools column: the template would not list them")
	}
	return &Chat{Messages: msgs, Tools: tools}, nil
}

// TRLDPO loads one line of a dpo file as DPOTrainer does: tools read
// like SFT's (dpo_trainer.py:1020-1021), chat_template_kwargs passed to
// every rendering (dpo_trainer.py:1022), then prompt (with the
// generation prompt), prompt+chosen and prompt+rejected rendered
// (dpo_trainer.py:1024-1040) and each completion cut from the end of its
// rendering at the length of the prompt's (dpo_trainer.py:1062-1064): so
// a completion is what the chat template renders past the prompt, which
// Template.CheckPair checks.
func TRLDPO(line []byte) (*Chat, error) {
	ex, tools, err := trlExample(line)
	if err != nil {
		return nil, err
	}
	parts := map[string][]map[string]any{}
	for _, key := range []string{"prompt", "chosen", "rejected"} {
		if parts[key], err = conversational(ex, key); err != nil {
			return nil, err
		}
	}
	kwargs, _ := ex["chat_template_kwargs"].(map[string]any)
	if v, ok := ex["chat_template_kwargs"]; ok && kwargs == nil {
		return nil, fmt.Errorf("chat_template_kwargs is %T: ** would raise on it", v)
	}
	if tools == nil && (callsIn(parts["prompt"]) || callsIn(parts["chosen"]) || callsIn(parts["rejected"])) {
		return nil, fmt.Errorf("the pair calls tools but has no tools column: the template would not list them")
	}
	chat := &Chat{Tools: tools, Prompt: parts["prompt"], Kwargs: kwargs}
	for _, key := range []string{"chosen", "rejected"} {
		full := append(slices.Clone(parts["prompt"]), parts[key]...)
		if err := trlToolCalls(full); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if key == "chosen" {
			chat.Messages, chat.Chosen = full, parts[key]
		} else {
			chat.Rejected, chat.RejectedOnly = full, parts[key]
		}
	}
	return chat, nil
}

// trlExample decodes a line and reads its tools column.
func trlExample(line []byte) (map[string]any, []any, error) {
	ex, err := object(line)
	if err != nil {
		return nil, nil, err
	}
	tools, err := trlTools(ex)
	return ex, tools, err
}

// trlTools reads the tools column: `tools = example.get("tools")`, then
// json.loads when it is a string (sft_trainer.py:1458-1459,
// dpo_trainer.py:1020-1021). TRL passes it to the chat template as
// tools=; a tool-calling example needs it (dataset_formats.md:157), so
// a line that calls a tool must have it (trlToolCalls).
func trlTools(ex map[string]any) ([]any, error) {
	v := ex["tools"]
	if s, ok := v.(string); ok {
		var err error
		if v, err = loads(s); err != nil {
			return nil, fmt.Errorf("tools: json.loads: %w", err)
		}
	}
	if v == nil {
		return nil, nil
	}
	tools, ok := v.([]any)
	if !ok || len(tools) == 0 {
		return nil, fmt.Errorf("tools is %v: want a list of tool definitions, or no tools", v)
	}
	return tools, nil
}

// conversational is ex[key] if it is conversational: a list whose first
// element is a dict with a "role" (is_conversational, data_utils.py:184-196);
// otherwise TRL would treat the column as plain text.
func conversational(ex map[string]any, key string) ([]map[string]any, error) {
	msgs, err := messages(ex[key], key)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 || msgs[0]["role"] == nil {
		return nil, fmt.Errorf("%s is not conversational: its first element has no role", key)
	}
	return msgs, nil
}

// trlToolCalls checks tool calls as dataset_formats.md:143-155 gives
// them: an assistant turn's tool_calls are {type: function, function:
// {name, arguments}}, and a tool turn names its tool (the one called,
// when the assistant turn before it has tool_calls). The doc's
// arguments are objects, "arbitrary JSON objects" (dataset_formats.md:194);
// TRL hands them to the chat template as they are, and a JSON string is
// what the templates that concatenate them take (Template.Args), so
// either passes here.
func trlToolCalls(msgs []map[string]any) error {
	var called []string
	for i, m := range msgs {
		switch m["role"] {
		case "assistant":
			called = nil
			calls, _ := m["tool_calls"].([]any)
			for _, c := range calls {
				call, _ := c.(map[string]any)
				fn, _ := call["function"].(map[string]any)
				_, isObject := fn["arguments"].(map[string]any)
				_, isString := fn["arguments"].(string)
				if !isObject && !isString || call["type"] != "function" {
					return fmt.Errorf("message %d: tool call %v: want type function and arguments an object or a JSON string", i, c)
				}
				called = append(called, fmt.Sprint(fn["name"]))
			}
		case "tool":
			name, _ := m["name"].(string)
			if name == "" || len(called) > 0 && !slices.Contains(called, name) {
				return fmt.Errorf("message %d: tool turn names %q, not a tool the assistant called (%v)", i, name, called)
			}
		}
	}
	return nil
}

// callsIn reports whether any of msgs has tool_calls.
func callsIn(msgs []map[string]any) bool {
	for _, m := range msgs {
		if calls, _ := m["tool_calls"].([]any); len(calls) > 0 {
			return true
		}
	}
	return false
}
