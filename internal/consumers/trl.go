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
	Tools    []any            // tools=
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
	return &Chat{Messages: msgs, Tools: tools}, nil
}

// TRLDPO loads one line of a dpo file as DPOTrainer does: tools read
// like SFT's (dpo_trainer.py:1020-1022), then prompt, prompt+chosen and
// prompt+rejected rendered (dpo_trainer.py:1025-1040), the completions
// cut from the ends of the latter two by the length of the prompt
// rendered with a generation prompt, which only matches when the prompt
// ends on a user turn and each completion starts with the assistant
// (dpo_trainer.py:1049-1064).
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
	if last := parts["prompt"][len(parts["prompt"])-1]; last["role"] != "user" {
		return nil, fmt.Errorf("the prompt ends on a %v turn, not the user's", last["role"])
	}
	chat := &Chat{Tools: tools}
	for _, key := range []string{"chosen", "rejected"} {
		c := parts[key]
		if c[0]["role"] != "assistant" || c[len(c)-1]["role"] != "assistant" {
			return nil, fmt.Errorf("%s does not start and end with an assistant turn", key)
		}
		full := append(slices.Clone(parts["prompt"]), c...)
		if err := trlToolCalls(full); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if key == "chosen" {
			chat.Messages = full
		} else {
			chat.Rejected = full
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
// tools=; a tool-calling example needs it (dataset_formats.md:157).
func trlTools(ex map[string]any) ([]any, error) {
	v := ex["tools"]
	if s, ok := v.(string); ok {
		var err error
		if v, err = loads(s); err != nil {
			return nil, fmt.Errorf("tools: json.loads: %w", err)
		}
	}
	tools, ok := v.([]any)
	if !ok || len(tools) == 0 {
		return nil, fmt.Errorf("no tools column: the template would not list the tools the turns call")
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
// {name, arguments}} with arguments an object, "arbitrary JSON objects"
// (dataset_formats.md:194), and a tool turn names its tool (the one
// called, when the assistant turn before it has tool_calls).
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
				if _, ok := fn["arguments"].(map[string]any); !ok || call["type"] != "function" {
					return fmt.Errorf("message %d: tool call %v: arguments must be an object", i, c)
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
