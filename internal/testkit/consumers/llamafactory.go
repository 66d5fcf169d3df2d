package consumers

import (
	"fmt"
	"regexp"
	"strings"
)

// The LLaMA-Factory rules come from hiyouga/LLaMA-Factory at
// ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30 (0.9.5 and 54 commits),
// src/llamafactory/data/: parser.py, converter.py, formatter.py and
// tool_utils.py. It loads a file with datasets<=4.0.0 (pyproject.toml),
// that is, through LoadJSONLines(lines, false).

// LFAttr is a dataset's attributes as parser.py's DatasetAttr holds them.
type LFAttr struct {
	Formatting string
	Ranking    bool              // preference data: chosen and rejected columns
	Columns    map[string]string // messages, tools, system, chosen, rejected, ...
	Tags       map[string]string // role_tag, content_tag, user_tag, ...
}

// LFDatasetAttr reads one entry of dataset_info.json as DatasetAttr.join
// does (parser.py:72-90): formatting defaults to "alpaca", ranking to
// false (parser.py:73-74); when the entry
// has "columns" every column it leaves out is None, and when it has
// "tags" every tag it leaves out is None (set_attr, parser.py:69-70),
// not the class default.
func LFDatasetAttr(entry map[string]any) LFAttr {
	a := LFAttr{Formatting: "alpaca", Columns: map[string]string{"messages": "conversations"},
		Tags: map[string]string{"role_tag": "from", "content_tag": "value", "user_tag": "human",
			"assistant_tag": "gpt", "observation_tag": "observation", "function_tag": "function_call",
			"system_tag": "system"}}
	if f, ok := entry["formatting"].(string); ok {
		a.Formatting = f
	}
	a.Ranking, _ = entry["ranking"].(bool)
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
	Tools            string // as the template's ToolFormatter takes it
}

// LlamaFactorySharegpt converts one row, as LoadJSONLines gave it back,
// as SharegptDatasetConverter does (converter.py:134-227) for an SFT
// dataset or (a.Ranking) a pairwise one, whose Response is then the
// chosen and the rejected turn. It returns an error where the converter
// would log "Skipping this abnormal example" and train on nothing, or
// would not read the row as a pair.
func LlamaFactorySharegpt(a LFAttr, ex map[string]any) (*LFExample, error) {
	if a.Formatting != "sharegpt" {
		return nil, fmt.Errorf("formatting %q, not sharegpt", a.Formatting)
	}
	msgs, err := messages(ex[a.Columns["messages"]], "messages column "+a.Columns["messages"])
	if err != nil {
		return nil, err
	}
	t := a.Tags
	out := &LFExample{}
	// converter.py:148-155: a first turn with the system tag is the system prompt.
	if t["system_tag"] != "" && len(msgs) > 0 && msgs[0][t["role_tag"]] == t["system_tag"] {
		out.System, _ = msgs[0][t["content_tag"]].(string)
		msgs = msgs[1:]
	}
	roles := map[string]string{t["user_tag"]: "user", t["assistant_tag"]: "assistant",
		t["observation_tag"]: "observation", t["function_tag"]: "function", t["system_tag"]: "system"}
	accept := [2][]string{{t["user_tag"], t["observation_tag"]}, {t["assistant_tag"], t["function_tag"]}}
	var aligned []map[string]string
	for i, m := range msgs {
		// converter.py:160-164: odd turns are user or observation, even ones assistant or function.
		from, _ := m[t["role_tag"]].(string)
		if from == "" || (from != accept[i%2][0] && from != accept[i%2][1]) {
			return nil, fmt.Errorf("invalid role tag: turn %d is %q, want one of %v", i, from, accept[i%2])
		}
		// converter.py:166-171: the content is passed on as it is; StringFormatter wants a string.
		content, ok := m[t["content_tag"]].(string)
		if !ok {
			return nil, fmt.Errorf("turn %d: %s is %T, not a string (formatter.py:75-77 raises)", i, t["content_tag"], m[t["content_tag"]])
		}
		aligned = append(aligned, map[string]string{"role": roles[from], "content": content})
	}
	// converter.py:173-177: an SFT example has an even number of turns, a ranking one an odd number.
	if a.Ranking && len(aligned)%2 == 0 || !a.Ranking && (len(aligned)%2 != 0 || len(aligned) == 0) {
		return nil, fmt.Errorf("invalid message count: %d turns after the system prompt (ranking %v)", len(aligned), a.Ranking)
	}
	out.Prompt, out.Response = aligned[:len(aligned)-1], aligned[len(aligned)-1:] // converter.py:214-216
	if a.Ranking {
		pair, err := lfPairTurns(a, ex, roles, accept[1])
		if err != nil {
			return nil, err
		}
		out.Prompt, out.Response = aligned, pair // converter.py:203-213
	}
	// converter.py:222: the tools column is passed on as it is.
	if col := a.Columns["tools"]; col != "" {
		tools, ok := ex[col].(string)
		if !ok && ex[col] != nil {
			return nil, fmt.Errorf("tools is %T: ToolFormatter json.loads a string (formatter.py:149-153)", ex[col])
		}
		out.Tools = tools
	}
	return out, nil
}

// lfPairTurns reads a ranking row's chosen and rejected turns as
// converter.py:182-213 does: a row with a bool kto_tag is a KTO example,
// not a pair; each of the two columns must be a dict (else the row is
// read as a normal example, its last turn the response), whose role tag
// is an assistant or function tag (else the example is broken).
func lfPairTurns(a LFAttr, ex map[string]any, roles map[string]string, even []string) ([]map[string]string, error) {
	if col := a.Columns["kto_tag"]; col != "" {
		if _, ok := ex[col].(bool); ok {
			return nil, fmt.Errorf("kto_tag %s is a bool: a KTO example, not a pair (converter.py:182)", col)
		}
	}
	var out []map[string]string
	for _, key := range []string{"chosen", "rejected"} {
		turn, ok := ex[a.Columns[key]].(map[string]any)
		if a.Columns[key] == "" || !ok {
			return nil, fmt.Errorf("%s column %q is %T, not a dict: not read as a pair (converter.py:189-193)", key, a.Columns[key], ex[a.Columns[key]])
		}
		from, _ := turn[a.Tags["role_tag"]].(string)
		if from == "" || (from != even[0] && from != even[1]) {
			return nil, fmt.Errorf("invalid role tag: %s is %q, want one of %v (converter.py:196-201)", key, from, even)
		}
		content, ok := turn[a.Tags["content_tag"]].(string)
		if !ok {
			return nil, fmt.Errorf("%s: %s is %T, not a string", key, a.Tags["content_tag"], turn[a.Tags["content_tag"]])
		}
		out = append(out, map[string]string{"role": roles[from], "content": content})
	}
	return out, nil
}

// LFFunctionCall is one call FunctionFormatter reads from a function turn.
type LFFunctionCall struct {
	Name, Arguments string // Arguments as json.dumps wrote them
}

// LFFunction reads a function turn's content as FunctionFormatter.apply
// does (formatter.py:96-140, with the default tool_call_words of
// template.py:599): when the content holds <tool_call>...</tool_call>,
// the JSON is what is between the first such pair, and the rest of the
// content (the text around it) goes ahead of the rendered calls;
// otherwise the whole content is the JSON. The JSON is one call or a
// list of calls, each {"name", "arguments"}, whose arguments are
// json.dumps'ed (formatter.py:102-110).
func LFFunction(content string) (text string, calls []LFFunctionCall, err error) {
	js := content
	if m := lfToolCallRE.FindStringSubmatchIndex(content); m != nil {
		js = content[m[2]:m[3]]
		text = content[:m[0]] + content[m[1]:]
	}
	v, err := loads(js)
	if err != nil {
		return "", nil, fmt.Errorf("invalid JSON format in function message: %w", err)
	}
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	for _, c := range list {
		call, _ := c.(map[string]any)
		name, _ := call["name"].(string)
		args, present := call["arguments"]
		if call == nil || name == "" || !present {
			return "", nil, fmt.Errorf("a call without name or arguments (KeyError): %v", c)
		}
		calls = append(calls, LFFunctionCall{Name: name, Arguments: dumps(args)})
	}
	return text, calls, nil
}

var lfToolCallRE = regexp.MustCompile(`(?s)<tool_call>(.*?)</tool_call>`)

// LFQwenFunction renders calls as QwenToolUtils.function_formatter does
// (tool_utils.py:603-608): each {"name": ..., "arguments":
// json.loads(arguments)} inside <tool_call> tags, one per line.
func LFQwenFunction(calls []LFFunctionCall) (string, error) {
	parts := make([]string, len(calls))
	for i, c := range calls {
		args, err := loads(c.Arguments)
		if err != nil {
			return "", err
		}
		parts[i] = "<tool_call>\n" + dumps(map[string]any{"name": c.Name, "arguments": args}) + "\n</tool_call>"
	}
	return strings.Join(parts, "\n"), nil
}

// LFQwenTools renders the tools string as QwenToolUtils.tool_formatter
// reads it (formatter.py:149-153 json.loads it; tool_utils.py:593-597
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
