package consumers

import (
	"fmt"
	"strings"
)

// The chat template rules come from the templates TRL ships, which are
// the models' own (and, for the _training variants, TRL's patches that
// wrap the assistant's output in {% generation %} for assistant-only
// loss): huggingface/trl at f2cd57710ae345ea6428ae95363267fcf38a3dc8,
// trl/chat_templates/<name>.jinja, each cited as <name>:<line>.
// transformers renders them in a sandboxed Jinja environment with
// trim_blocks and lstrip_blocks, a tojson that is json.dumps (so a string
// comes out quoted and escaped), messages= and tools= as given
// (huggingface/transformers, src/transformers/utils/chat_template_utils.py:
// _compile_jinja_template).

// ArgShape is the shape of a call's arguments a template takes.
type ArgShape int

// Argument shapes.
const (
	// ArgsObject: the template writes the arguments with tojson (a JSON
	// string comes out encoded twice) or walks their items (a string
	// raises).
	ArgsObject ArgShape = iota
	// ArgsString: the template concatenates the arguments with + (an
	// object raises TypeError).
	ArgsString
	// ArgsEither: the template writes a string as it is and an object
	// with tojson.
	ArgsEither
)

// Template is one chat template, as far as a training file's rows
// depend on it. Each rule names where it comes from; "" means the
// template has no such rule.
type Template struct {
	Name     string
	Args     ArgShape
	ArgsRule string
	// CallsKey: the template tests for the key tool_calls ("'tool_calls'
	// in message"), so a turn without calls must not have it, not even
	// null or empty.
	CallsKey string
	// OneCall: the template raises on an assistant message that has
	// other than one call.
	OneCall string
	// FirstCallOnly: the template writes the first call of a message and
	// drops the others.
	FirstCallOnly string
	// ToolAfterCall: a tool message raises unless an assistant message
	// with a call came before it, with no assistant message without
	// calls in between.
	ToolAfterCall string
	// UserQuery: the template raises without a user message that is not
	// a wrapped tool response, and on a system message that is not first.
	UserQuery string
	// LastQuery: an assistant message renders otherwise (its reasoning
	// shown or not) depending on whether a user message follows it: a
	// completion that holds a user message changes how the prompt
	// renders.
	LastQuery string
	// FinalDropsAnalysis: a call message's content is written only while
	// no assistant message without calls follows it.
	FinalDropsAnalysis string
	// ThinkingPrompt: the generation prompt closes an empty <think>
	// block unless enable_thinking is on (or is off only when
	// enable_thinking is false: ThinkingOffOnly).
	ThinkingPrompt  string
	ThinkingOffOnly bool
	// ThinkPrompt: after a user message the generation prompt opens a
	// <think> block that the assistant's rendering writes only when a
	// call message's content starts with one; after tool messages there
	// is no generation prompt, but the tool outputs' closing tag is
	// written only before an assistant message without calls.
	ThinkPrompt string
	// ThinkingExact: the generation prompt opens a <think> block unless
	// enable_thinking is false, and then writes an empty one, as an
	// assistant message writes its reasoning or, without any, an empty
	// block: a completion starts where the prompt ends only when it
	// carries reasoning exactly when thinking is on.
	ThinkingExact string
	// Reasoning is the key of an assistant message's reasoning the
	// template renders (reasoning_content or thinking; "" for none, and
	// then reasoning under either key is dropped): reasoning under the
	// other key vanishes, by ReasoningRule.
	Reasoning, ReasoningRule string
	// CallsAndThinking: the template raises on an assistant message with
	// calls that has both text and thinking.
	CallsAndThinking string
	// Generation: where the _training variant wraps the assistant's
	// output in {% generation %}; "" for a template without one.
	Generation string
	// Tools: where the template writes tools= (with its own words on how
	// to call them); "" for a template that never reads tools=.
	Tools string
}

// Where the Qwen and Llama-3.x templates write tools= (Template.Tools).
const (
	qwenTools  = ": {%- if tools %}: the system turn, the definitions in <tools></tools> and its <tool_call> instructions"
	llamaTools = ": {%- if tools is not none %}: the first user message (tools_in_user_message, true by default), with its JSON call instructions"
)

// Reasoning keys (Template.Reasoning).
const (
	KeyReasoningContent = "reasoning_content"
	KeyThinking         = "thinking"
)

// Templates are the chat templates of the families docs/trajectories-
// offline.md lists: Qwen2.5, Qwen3, Qwen3-Instruct-2507, Qwen3.5 (the
// thinking and the non-thinking default), Qwen3.6, Llama-3.1, Llama-3.2,
// gpt-oss, GLM-4-MoE, DeepSeek-V3, Nemotron-3-Nano and LFM2.5, each with
// the generation spans of its _training variant where TRL has one
// (LFM2.5's own template has them). The _training variants render as
// the originals but for those spans, except DeepSeek-V3's, which writes
// the arguments with tojson (deepseekv3_training:1-7): it is listed
// apart.
//
// Where each writes tools= (Template.Tools) is cited by the statement
// that opens it; DeepSeek-V3's two templates never read tools= (they
// render the system messages, then the turns).
func Templates() []Template {
	qwen35 := func(name string, offOnly bool) Template {
		return Template{Name: name, Args: ArgsObject, ArgsRule: name + ":120 (tool_call.arguments|items)",
			UserQuery: name + ":67-85", LastQuery: name + ":67-76,100-104", ThinkingPrompt: name + ":147-153",
			ThinkingOffOnly: offOnly, Reasoning: KeyReasoningContent, ReasoningRule: name + ":90-101",
			Generation: name + "_training:108-136", Tools: name + qwenTools}
	}
	return []Template{
		{Name: "qwen2_5", Args: ArgsObject, ArgsRule: "qwen2_5:36 (tool_call.arguments | tojson)", Generation: "qwen2_5_training:31-50",
			Tools: "qwen2_5" + qwenTools},
		{Name: "qwen3", Args: ArgsEither, ArgsRule: "qwen3:63-67", LastQuery: "qwen3:17-23,43-50",
			ThinkingPrompt: "qwen3:84-88", ThinkingOffOnly: true, Reasoning: KeyReasoningContent, ReasoningRule: "qwen3:34-50",
			Generation: "qwen3_training:51-73", Tools: "qwen3" + qwenTools},
		{Name: "qwen3_instruct_2507", Args: ArgsEither, ArgsRule: "qwen3_instruct_2507:38-42", Generation: "qwen3_instruct_2507_training:34-56",
			Tools: "qwen3_instruct_2507" + qwenTools},
		qwen35("qwen3_5_think", true),
		qwen35("qwen3_5_nothink", false),
		qwen35("qwen3_6", true),
		{Name: "llama3_1", Args: ArgsObject, ArgsRule: "llama3_1:88 (tool_call.arguments | tojson)",
			CallsKey: "llama3_1:67-69", OneCall: "llama3_1:70-71", Tools: "llama3_1" + llamaTools},
		{Name: "llama3_2", Args: ArgsObject, ArgsRule: "llama3_2:78 (tool_call.arguments | tojson)",
			CallsKey: "llama3_2:68-70", OneCall: "llama3_2:71-72", Tools: "llama3_2" + llamaTools},
		{Name: "gptoss", Args: ArgsObject, ArgsRule: "gptoss:299 (tool_call.arguments|tojson)", CallsKey: "gptoss:273",
			FirstCallOnly: "gptoss:283-285", ToolAfterCall: "gptoss:318-319", FinalDropsAnalysis: "gptoss:277-281,291-294",
			Reasoning: KeyThinking, ReasoningRule: "gptoss:268-272,289-294,305-306", CallsAndThinking: "gptoss:289-290",
			Generation: "gptoss_training:278-323", Tools: "gptoss: {%- if tools -%}: the developer message's # Tools section, namespace functions"},
		{Name: "glm4moe", Args: ArgsObject, ArgsRule: "glm4moe:74-75 (_args.items())", LastQuery: "glm4moe:38-43,60-64",
			ThinkingPrompt: "glm4moe:101-102", ThinkingOffOnly: true, Reasoning: KeyReasoningContent, ReasoningRule: "glm4moe:50-64",
			Generation: "glm4moe_training:61-89", Tools: "glm4moe: {%- if tools -%}: the system turn's # Tools, the definitions in <tools></tools>"},
		{Name: "deepseekv3", Args: ArgsString, ArgsRule: "deepseekv3:1 (+ tool['function']['arguments'] +)",
			CallsKey: "deepseekv3:1 ('tool_calls' in message)", ThinkPrompt: "deepseekv3:1 (<｜Assistant｜><think>, <｜tool▁outputs▁end｜>)"},
		{Name: "deepseekv3_training", Args: ArgsObject, ArgsRule: "deepseekv3_training:1-7 (| tojson)",
			CallsKey: "deepseekv3_training:8", ThinkPrompt: "deepseekv3_training:8", Generation: "deepseekv3_training:8"},
		{Name: "nemotron_3_nano", Args: ArgsObject, ArgsRule: "nemotron_3_nano:150 (tool_call.arguments|items)",
			LastQuery: "nemotron_3_nano:34-39,123,161", ThinkingExact: "nemotron_3_nano:12,107-119,198-203",
			Reasoning: KeyReasoningContent, ReasoningRule: "nemotron_3_nano:107-108", Generation: "nemotron_3_nano_training:128-188",
			Tools: "nemotron_3_nano: {%- if tools %}: the system turn's # Tools, the definitions in <tools></tools>"},
		{Name: "lfm2_2_5", Args: ArgsObject, ArgsRule: "lfm2_2_5:38 (func_args.items())",
			CallsKey: "lfm2_2_5:98 (message.tool_calls is defined)", LastQuery: "lfm2_2_5:69-73,78,85-89",
			Reasoning: KeyThinking, ReasoningRule: "lfm2_2_5:78-79", Generation: "lfm2_2_5:77-105",
			Tools: "lfm2_2_5: {%- if tools %}: the system turn's List of tools: <|tool_list_start|>...<|tool_list_end|>"},
	}
}

// CheckChat returns the first rule of t that rendering msgs with tools=
// tools breaks, or nil: where the template would raise, write null or
// None as text, encode arguments twice, or leave a call out.
func (t Template) CheckChat(msgs []map[string]any, tools []any) error {
	var called, finalSince bool // a call came before; no assistant message without calls since
	hasQuery := false
	for i, m := range msgs {
		if err := t.checkMessage(i, m); err != nil {
			return err
		}
		calls, _ := m["tool_calls"].([]any)
		switch m["role"] {
		case "assistant":
			called, finalSince = len(calls) > 0, len(calls) == 0
		case "tool":
			if t.ToolAfterCall != "" && (!called || finalSince) {
				return fmt.Errorf("%s: message %d: a tool message with no call before it raises", t.ToolAfterCall, i)
			}
		case "user":
			c, _ := m["content"].(string)
			c = strings.TrimSpace(c)
			hasQuery = hasQuery || !(strings.HasPrefix(c, "<tool_response>") && strings.HasSuffix(c, "</tool_response>"))
		case "system":
			if t.UserQuery != "" && i > 0 {
				return fmt.Errorf("%s: message %d: a system message that is not first raises", t.UserQuery, i)
			}
		}
	}
	if t.UserQuery != "" && !hasQuery {
		return fmt.Errorf("%s: no user query: the template raises", t.UserQuery)
	}
	return nil
}

// checkMessage checks one message against t's rules.
func (t Template) checkMessage(i int, m map[string]any) error {
	if _, ok := m["content"].(string); !ok {
		// qwen2_5:23 and deepseekv3 concatenate it (None raises), glm4moe:24-36 writes None as "None".
		return fmt.Errorf("qwen2_5:23, glm4moe:24-36: message %d: content is %T, not a string", i, m["content"])
	}
	if m["role"] != "assistant" {
		return nil
	}
	raw, has := m["tool_calls"]
	calls, _ := raw.([]any)
	if t.CallsKey != "" && has && len(calls) == 0 {
		return fmt.Errorf("%s: message %d: tool_calls is %v: the template tests for the key and then reads the calls", t.CallsKey, i, raw)
	}
	if err := t.checkReasoning(i, m, len(calls) > 0); err != nil {
		return err
	}
	if t.OneCall != "" && has && len(calls) != 1 {
		return fmt.Errorf("%s: message %d: %d calls in one message raise (\"only supports single tool-calls at once\")", t.OneCall, i, len(calls))
	}
	if t.FirstCallOnly != "" && len(calls) > 1 {
		return fmt.Errorf("%s: message %d: only the first of its %d calls is written", t.FirstCallOnly, i, len(calls))
	}
	for j, c := range calls {
		call, _ := c.(map[string]any)
		fn, _ := call["function"].(map[string]any)
		if err := t.checkArguments(fn["arguments"]); err != nil {
			return fmt.Errorf("%s: message %d, call %d: %w", t.ArgsRule, i, j, err)
		}
	}
	return nil
}

// checkReasoning checks an assistant message's reasoning against
// t.Reasoning and t.CallsAndThinking.
func (t Template) checkReasoning(i int, m map[string]any, called bool) error {
	for _, key := range []string{KeyReasoningContent, KeyThinking} {
		r, _ := m[key].(string)
		if t.Reasoning != "" && key != t.Reasoning && strings.TrimSpace(r) != "" {
			return fmt.Errorf("%s: message %d: reasoning under %s is not rendered: the template reads %s", t.ReasoningRule, i, key, t.Reasoning)
		}
	}
	c, _ := m["content"].(string)
	if th, _ := m[KeyThinking].(string); t.CallsAndThinking != "" && called && c != "" && th != "" {
		return fmt.Errorf("%s: message %d: a call message with both text and thinking raises", t.CallsAndThinking, i)
	}
	return nil
}

// checkArguments checks one call's arguments against t.Args.
func (t Template) checkArguments(args any) error {
	_, isObject := args.(map[string]any)
	s, isString := args.(string)
	switch {
	case t.Args == ArgsString && !isString:
		return fmt.Errorf("arguments are %T: concatenating them raises TypeError", args)
	case t.Args == ArgsObject && isString:
		return fmt.Errorf("arguments are the string %.40q: written again with tojson (encoded twice) or walked as a mapping (raises)", s)
	case !isObject && !isString:
		return fmt.Errorf("arguments are %T, neither an object nor a string", args)
	}
	return nil
}

// CheckPair returns the first rule of t by which prompt+completion,
// rendered with kwargs, does not start with prompt rendered with the
// generation prompt: the condition for TRL's DPOTrainer to cut the
// completion's tokens at the right place (dpo_trainer.py:1049-1064).
func (t Template) CheckPair(prompt, completion []map[string]any, kwargs map[string]any) error {
	for _, m := range completion {
		if err := t.checkThinkPrompt(prompt, m); err != nil {
			return err
		}
		if m["role"] == "user" && t.LastQuery != "" {
			return fmt.Errorf("%s: a user message in the completion moves the last query, and the prompt's assistant turns render otherwise", t.LastQuery)
		}
		if m["role"] != "assistant" {
			return fmt.Errorf("the completion holds a %v message: the generation prompt opens an assistant turn, not that", m["role"])
		}
		if t.FinalDropsAnalysis != "" && !callsIn([]map[string]any{m}) && analysisShown(prompt) {
			return fmt.Errorf("%s: a completion without calls hides the text of the prompt's call messages, which the prompt alone shows", t.FinalDropsAnalysis)
		}
		if t.ThinkingPrompt != "" && reasons(m) && !thinkingOn(kwargs, t.ThinkingOffOnly) {
			return fmt.Errorf("%s: the generation prompt closes an empty <think> block, and the completion opens one with its reasoning", t.ThinkingPrompt)
		}
		if on := thinkingOn(kwargs, true); t.ThinkingExact != "" && reasons(m) != on {
			return fmt.Errorf("%s: with enable_thinking %v the generation prompt ends otherwise than a completion with reasoning %v begins", t.ThinkingExact, on, reasons(m))
		}
	}
	return nil
}

// checkThinkPrompt is t.ThinkPrompt for completion message m.
func (t Template) checkThinkPrompt(prompt []map[string]any, m map[string]any) error {
	if t.ThinkPrompt == "" || len(prompt) == 0 {
		return nil
	}
	c, _ := m["content"].(string)
	called := callsIn([]map[string]any{m})
	switch last := prompt[len(prompt)-1]["role"]; {
	case last == "tool" && called:
		return fmt.Errorf("%s: after tool messages a call message is written without closing the tool outputs, which the prompt alone closes", t.ThinkPrompt)
	case last != "tool" && !(called && strings.HasPrefix(c, "<think>\n")):
		return fmt.Errorf("%s: the generation prompt opens a <think> block the completion does not start with", t.ThinkPrompt)
	}
	return nil
}

// analysisShown reports whether prompt has a call message with content
// or thinking after its last assistant message without calls: gpt-oss
// writes either only while no assistant message without calls follows
// it.
func analysisShown(prompt []map[string]any) bool {
	shown := false
	for _, m := range prompt {
		if m["role"] != "assistant" {
			continue
		}
		c, _ := m["content"].(string)
		th, _ := m[KeyThinking].(string)
		shown = callsIn([]map[string]any{m}) && (shown || c != "" || th != "")
	}
	return shown
}

// reasons reports whether m carries reasoning a Qwen3, GLM or
// Nemotron template writes as its <think> block: reasoning_content, or a
// </think> in the content.
func reasons(m map[string]any) bool {
	r, _ := m["reasoning_content"].(string)
	c, _ := m["content"].(string)
	return strings.TrimSpace(r) != "" || strings.Contains(c, "</think>")
}

// thinkingOn reports whether kwargs leave the generation prompt's
// <think> block open: enable_thinking true, or (offOnly) not false.
func thinkingOn(kwargs map[string]any, offOnly bool) bool {
	v, ok := kwargs["enable_thinking"].(bool)
	if offOnly {
		return !ok || v
	}
	return ok && v
}
