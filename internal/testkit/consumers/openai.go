package consumers

import (
	"fmt"
	"slices"
)

// The OpenAI rules come from openai/openai-openapi, openapi.yaml at
// f85dbe223d40e1a31cba812ab2d755c7e98a92a3. A fine-tuning chat example
// is {"messages": [...], "tools": [...]}, its messages those of the chat
// API; the assistant message is
// FineTuneChatCompletionRequestAssistantMessage (line 39895), which adds
// weight to ChatCompletionRequestAssistantMessage (line 31216).

// OpenAIChat checks one line of an sft file against OpenAI's fine-tuning
// chat format and returns the first rule it breaks, or nil.
func OpenAIChat(line []byte) error {
	ex, err := object(line)
	if err != nil {
		return err
	}
	for k := range ex {
		if !slices.Contains([]string{"messages", "tools", "parallel_tool_calls"}, k) {
			return fmt.Errorf("unknown top-level key %q", k)
		}
	}
	var names []string
	if tools, ok := ex["tools"]; ok { // optional (CreateFineTuningJobRequest's chat input)
		if names, err = openAITools(tools); err != nil {
			return err
		}
	}
	msgs, err := messages(ex["messages"], "messages")
	if err != nil {
		return err
	}
	var open []string // ids of the last assistant turn's calls not yet answered
	for i, m := range msgs {
		if open, err = openAIMessage(m, names, open); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	if len(msgs) == 0 || msgs[len(msgs)-1]["role"] != "assistant" {
		return fmt.Errorf("the example does not end on an assistant turn: the last turn is what is trained on")
	}
	return nil
}

// openAITools checks the tools list (ChatCompletionTool, openapi.yaml
// line 31921: type "function" and a function with a name) and returns the
// names.
func openAITools(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("tools is %T, want a list", v)
	}
	var names []string
	for i, t := range list {
		tool, _ := t.(map[string]any)
		fn, _ := tool["function"].(map[string]any)
		name, _ := fn["name"].(string)
		if tool["type"] != "function" || name == "" {
			return nil, fmt.Errorf("tools[%d] is not {type: function, function: {name, ...}}: %v", i, t)
		}
		if _, ok := fn["parameters"].(map[string]any); !ok {
			return nil, fmt.Errorf("tools[%d].function.parameters is not an object", i)
		}
		names = append(names, name)
	}
	return names, nil
}

// openAIMessage checks one message against its role's schema and the
// calls still open, and returns the calls open after it.
func openAIMessage(m map[string]any, tools, open []string) ([]string, error) {
	allowed := map[string][]string{
		"system":    {"role", "content", "name"},
		"user":      {"role", "content", "name"},
		"assistant": {"role", "content", "name", "tool_calls", "weight"},
		"tool":      {"role", "content", "tool_call_id"}, // ChatCompletionRequestToolMessage, line 31555
	}
	role, _ := m["role"].(string)
	keys, ok := allowed[role]
	if !ok {
		return nil, fmt.Errorf("role %q is not system, user, assistant or tool", m["role"])
	}
	for k := range m {
		if !slices.Contains(keys, k) {
			return nil, fmt.Errorf("a %s message has no field %q", role, k)
		}
	}
	if role != "tool" && len(open) > 0 {
		// The chat API refuses an assistant turn with tool_calls that is
		// not followed by a tool message answering each id.
		return nil, fmt.Errorf("calls %v are not answered before this %s message", open, role)
	}
	content, isString := m["content"].(string)
	switch role {
	case "assistant":
		return openAICalls(m, tools)
	case "tool":
		// A tool message answers a call of the assistant turn before it
		// (tool_call_id, line 31578, is required).
		id, _ := m["tool_call_id"].(string)
		i := slices.Index(open, id)
		if !isString || i < 0 {
			return nil, fmt.Errorf("tool message answers %q, not one of the open calls %v (or has no content)", id, open)
		}
		return slices.Delete(open, i, i+1), nil
	}
	if !isString || content == "" {
		return nil, fmt.Errorf("%s message without content", role)
	}
	return nil, nil
}

// openAICalls checks an assistant message: content "required unless
// tool_calls" (line 31236), and each call a ChatCompletionMessageToolCall
// (line 31004): id, type "function", function.name and function.arguments
// a string, "in JSON format" (line 31026), of a tool the example lists.
func openAICalls(m map[string]any, tools []string) ([]string, error) {
	calls, _ := m["tool_calls"].([]any)
	if content, _ := m["content"].(string); content == "" && len(calls) == 0 {
		return nil, fmt.Errorf("assistant message with neither content nor tool_calls")
	}
	var ids []string
	for j, c := range calls {
		call, _ := c.(map[string]any)
		fn, _ := call["function"].(map[string]any)
		id, _ := call["id"].(string)
		name, _ := fn["name"].(string)
		args, isString := fn["arguments"].(string)
		if id == "" || call["type"] != "function" || !slices.Contains(tools, name) {
			return nil, fmt.Errorf("tool_calls[%d] is not {id, type: function, function: {name of a listed tool}}: %v", j, c)
		}
		if !isString {
			return nil, fmt.Errorf("tool_calls[%d].function.arguments is %T, want a string of JSON", j, fn["arguments"])
		}
		if v, err := loads(args); err != nil {
			return nil, fmt.Errorf("tool_calls[%d].function.arguments is not JSON: %v", j, err)
		} else if _, ok := v.(map[string]any); !ok {
			return nil, fmt.Errorf("tool_calls[%d].function.arguments holds %T, want an object", j, v)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
