package consumers

import (
	"fmt"
	"regexp"
	"strings"
)

// The LLaMA-Factory rules come from hiyouga/LLaMA-Factory at
// ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30 (0.9.5 and 54 commits),
// src/llamafactory/data/: parser.py, converter.py, formatter.py and
// tool_utils.py.

// LFAttr is a dataset's attributes as parser.py's DatasetAttr holds them.
type LFAttr struct {
	Formatting string
	Columns    map[string]string // messages, tools, system, ...
	Tags       map[string]string // role_tag, content_tag, user_tag, ...
}

// LFDatasetAttr reads one entry of dataset_info.json as DatasetAttr.join
// does (parser.py:72-90): formatting defaults to "alpaca"; when the entry
// has "columns" every column it leaves out is None, and when it has
// "tags" every tag it leaves out is None (set_attr's default), not the
// class default.
func LFDatasetAttr(entry map[string]any) LFAttr {
	a := LFAttr{Formatting: "alpaca", Columns: map[string]string{"messages": "conversations"},
		Tags: map[string]string{"role_tag": "from", "content_tag": "value", "user_tag": "human",
			"assistant_tag": "gpt", "observation_tag": "observation", "function_tag": "function_call",
			"system_tag": "system"}}
	if f, ok := entry["formatting"].(string); ok {
		a.Formatting = f
	}
	if cols, ok := entry["columns"].(map[string]any); ok {
		a.Columns = strings2(cols)
	}
	if tags, ok := entry["tags"].(map[string]any); ok {
		a.Tags = strings2(tags)
	}
	return a
}

func strings2(m map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// LFExample is what the converter makes of one example.
type LFExample struct {
	Prompt, Response []map[string]string // role is user, assistant, observation or function
	System           string
	Tools            string // a JSON string, as the template's ToolFormatter takes it
}

// LlamaFactoryOpenAI converts one line as OpenAIDatasetConverter does
// (converter.py:231-367), for an SFT (not ranking) dataset. It returns
// an error where the converter would log "Skipping this abnormal example"
// and train on nothing.
func LlamaFactoryOpenAI(a LFAttr, line []byte) (*LFExample, error) {
	if a.Formatting != "openai" {
		return nil, fmt.Errorf("formatting %q: only the openai converter reads tool_calls", a.Formatting)
	}
	ex, err := object(line)
	if err != nil {
		return nil, err
	}
	msgs, err := messages(ex[a.Columns["messages"]], "messages column "+a.Columns["messages"])
	if err != nil {
		return nil, err
	}
	t := a.Tags
	out := &LFExample{}
	// converter.py:242-248: a first message with the system tag is the system prompt.
	if t["system_tag"] != "" && len(msgs) > 0 && msgs[0][t["role_tag"]] == t["system_tag"] {
		out.System, _ = msgs[0][t["content_tag"]].(string)
		msgs = msgs[1:]
	}
	aligned, err := lfAlign(t, msgs)
	if err != nil {
		return nil, err
	}
	// converter.py:285-298: turns alternate user/observation, assistant/function, and there is an even number of them.
	for i, m := range aligned {
		if want := [2]string{"user|observation", "assistant|function"}[i%2]; !strings.Contains(want, m["role"]) {
			return nil, fmt.Errorf("invalid role tag: turn %d is %s, want %s", i, m["role"], want)
		}
	}
	if len(aligned)%2 != 0 {
		return nil, fmt.Errorf("invalid message count: %d turns after the system prompt", len(aligned))
	}
	out.Prompt, out.Response = aligned[:len(aligned)-1], aligned[len(aligned)-1:] // converter.py:335-337
	// converter.py:339-341: a tools list is json.dumps'ed.
	if col := a.Columns["tools"]; col != "" {
		switch v := ex[col].(type) {
		case string:
			out.Tools = v
		case nil:
		default:
			out.Tools = dumps(v)
		}
	}
	return out, nil
}

// lfAlign is converter.py:252-283: an assistant turn with tool_calls
// becomes a function turn whose content is json.dumps of the calls'
// "function" objects (its own content is dropped); observation turns are
// gathered and joined into one, emitted before the next other turn (so
// observations after the last turn are dropped).
func lfAlign(t map[string]string, msgs []map[string]any) ([]map[string]string, error) {
	roles := map[string]string{t["user_tag"]: "user", t["assistant_tag"]: "assistant",
		t["observation_tag"]: "observation", t["function_tag"]: "function", t["system_tag"]: "system"}
	var aligned []map[string]string
	var responses []string
	for i, m := range msgs {
		role, _ := m[t["role_tag"]].(string)
		content, _ := m[t["content_tag"]].(string)
		if role == t["assistant_tag"] || role == t["function_tag"] {
			if calls, _ := m["tool_calls"].([]any); len(calls) > 0 {
				var fns []any
				for _, c := range calls {
					call, _ := c.(map[string]any)
					fns = append(fns, call["function"])
				}
				content, role = dumps(fns), t["function_tag"]
			}
		}
		if role == t["observation_tag"] {
			responses = append(responses, content)
			continue
		}
		if len(responses) > 0 {
			aligned = append(aligned, map[string]string{"role": "observation",
				"content": strings.Join(responses, "\n</tool_response>\n<tool_response>\n")})
			responses = nil
		}
		mapped, ok := roles[role]
		if !ok {
			return nil, fmt.Errorf("message %d: role %q is none of the tags (KeyError in tag_mapping)", i, role)
		}
		aligned = append(aligned, map[string]string{"role": mapped, "content": content})
	}
	return aligned, nil
}

// LFQwenFunction renders a function turn's content as the Qwen template
// does: FunctionFormatter parses it (formatter.py:102-108: json.loads,
// then each call's arguments json.dumps'ed), and QwenToolUtils writes
// each call as {"name": ..., "arguments": json.loads(arguments)} inside
// <tool_call> tags (tool_utils.py:603-608). Arguments given as a JSON
// string come out as that string, quoted: the double encoding.
func LFQwenFunction(content string) (string, error) {
	v, err := loads(content)
	if err != nil {
		return "", fmt.Errorf("invalid JSON format in function message: %w", err)
	}
	calls, ok := v.([]any)
	if !ok {
		calls = []any{v}
	}
	var parts []string
	for _, c := range calls {
		call, _ := c.(map[string]any)
		args, err := loads(dumps(call["arguments"]))
		if err != nil {
			return "", err
		}
		parts = append(parts, "<tool_call>\n"+dumps(map[string]any{"name": call["name"], "arguments": args})+"\n</tool_call>")
	}
	return strings.Join(parts, "\n"), nil
}

// LFQwenTools renders the tools string as QwenToolUtils.tool_formatter
// reads it (formatter.py:150-153 json.loads it; tool_utils.py:595-597
// keeps a {"type": "function", ...} tool as it is) and returns the
// function names it lists.
func LFQwenTools(tools string) ([]string, error) {
	v, err := loads(tools)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON format in tool description: %w", err)
	}
	list, _ := v.([]any)
	var names []string
	for _, t := range list {
		tool, _ := t.(map[string]any)
		if tool["type"] != "function" {
			tool = map[string]any{"type": "function", "function": tool}
		}
		fn, _ := tool["function"].(map[string]any)
		names = append(names, fmt.Sprint(fn["name"]))
	}
	return names, nil
}

var toolCallRE = regexp.MustCompile(`(?s)<tool_call>\n(.*?)\n</tool_call>`)

// LFToolCalls extracts the calls from rendered function text, as
// QwenToolUtils.tool_extractor would (tool_utils.py:613-628).
func LFToolCalls(rendered string) []map[string]any {
	var out []map[string]any
	for _, m := range toolCallRE.FindAllStringSubmatch(rendered, -1) {
		v, _ := loads(m[1])
		call, _ := v.(map[string]any)
		out = append(out, call)
	}
	return out
}
