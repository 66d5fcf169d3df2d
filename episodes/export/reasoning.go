package export

import (
	"fmt"
	"slices"
	"strings"
)

// Keys an assistant message's reasoning is written under
// (ChatOptions.ReasoningKey), for the trl target. Each chat template
// reads one of them, or none, and renders nothing of the other.
const (
	// ReasoningContent is the key of the Qwen3 family, GLM-4-MoE and
	// Nemotron-3-Nano templates (and of OpenAI-compatible servers'
	// replies); the default.
	ReasoningContent = "reasoning_content"
	// ReasoningThinking is the key of the gpt-oss and LFM2.5 templates.
	ReasoningThinking = "thinking"
)

// ReasoningKeys lists the keys ChatOptions.ReasoningKey takes, the
// default first.
func ReasoningKeys() []string { return []string{ReasoningContent, ReasoningThinking} }

// templateReasoning is the reasoning key of each chat template of
// docs/trajectories-offline.md, by the name of its file in TRL's
// trl/chat_templates (a _training variant reads what its original
// reads). The templates that render no reasoning at all (Qwen2.5,
// Qwen3-Instruct-2507, Llama-3.x, DeepSeek-V3) take the default.
var templateReasoning = map[string]string{
	"qwen2_5": ReasoningContent, "qwen3": ReasoningContent, "qwen3_instruct_2507": ReasoningContent,
	"qwen3_5_think": ReasoningContent, "qwen3_5_nothink": ReasoningContent, "qwen3_6": ReasoningContent,
	"llama3_1": ReasoningContent, "llama3_2": ReasoningContent, "glm4moe": ReasoningContent,
	"deepseekv3": ReasoningContent, "nemotron_3_nano": ReasoningContent,
	"gptoss": ReasoningThinking, "lfm2_2_5": ReasoningThinking,
}

// templateAliases are other spellings of template names.
var templateAliases = map[string]string{"gpt-oss": "gptoss", "lfm2_5": "lfm2_2_5", "lfm2.5": "lfm2_2_5", "nemotron-3-nano": "nemotron_3_nano"}

// TemplateNames lists the chat templates ChatOptions.Template takes,
// sorted (each also with its _training suffix).
func TemplateNames() []string {
	var out []string
	for name := range templateReasoning {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// resolveReasoning checks o's Template and ReasoningKey against its
// target and fills in the key: the template's, or reasoning_content. Only
// the trl target takes either: openai writes no reasoning, and
// llamafactory writes it as a <think> block in the turn's value.
func (o ChatOptions) resolveReasoning() (ChatOptions, error) {
	if o.Target != TargetTRL && (o.Template != "" || o.ReasoningKey != "") {
		return o, fmt.Errorf("target %s takes no template or reasoning key: they name the key of a Hugging Face chat template (target trl)", o.Target)
	}
	if o.Template != "" {
		name := strings.TrimSuffix(o.Template, "_training")
		if alias, ok := templateAliases[name]; ok {
			name = alias
		}
		key, ok := templateReasoning[name]
		if !ok {
			return o, fmt.Errorf("unknown chat template %q (want one of %s)", o.Template, strings.Join(TemplateNames(), ", "))
		}
		if o.ReasoningKey != "" && o.ReasoningKey != key {
			return o, fmt.Errorf("template %s reads reasoning under %q, not %q", o.Template, key, o.ReasoningKey)
		}
		o.Template, o.ReasoningKey = name, key
	}
	switch o.ReasoningKey {
	case "":
		if o.Target == TargetTRL {
			o.ReasoningKey = ReasoningContent
		}
	case ReasoningContent, ReasoningThinking:
	default:
		return o, fmt.Errorf("unknown reasoning key %q (want reasoning_content or thinking)", o.ReasoningKey)
	}
	return o, nil
}

// withReasoning is m with reasoning r under the key o says: thinking, or
// reasoning_content (for the llamafactory target, which writes it as a
// <think> block); none for openai.
func withReasoning(m Message, r string, o ChatOptions) Message {
	switch {
	case o.Target == TargetOpenAI:
	case o.ReasoningKey == ReasoningThinking:
		m.Thinking = r
	default:
		m.ReasoningContent = r
	}
	return m
}

// Reasoning is m's reasoning, under whichever key it was written.
func (m Message) Reasoning() string { return m.ReasoningContent + m.Thinking }

// fitTemplate fits msgs to o's template where it raises on them:
// gpt-oss raises on an assistant message with calls that has both text
// and thinking (gptoss.jinja:289-290 at TRL f2cd577), and renders
// either as the message's analysis channel (gptoss.jinja:291-294), so
// such a message's text goes into its thinking, after the reasoning.
func fitTemplate(msgs []Message, o ChatOptions) {
	if o.Template != "gptoss" {
		return
	}
	for i, m := range msgs {
		if len(m.ToolCalls) > 0 && m.Content != "" && m.Thinking != "" {
			msgs[i].Thinking, msgs[i].Content = m.Thinking+"\n\n"+m.Content, ""
		}
	}
}

// thinkingKwargs are a pair's chat_template_kwargs: enable_thinking on
// when either reply carries reasoning, off when neither does. The same
// value goes to the prompt's rendering and to both completions', so they
// share the prompt's rendering as a prefix in the templates whose
// generation prompt depends on it: Nemotron-3-Nano's opens "<think>\n"
// with thinking on and writes "<think></think>" with it off, as its
// replies do with reasoning and without (nemotron_3_nano.jinja:107-119,
// 198-203); Qwen3.5's small models close an empty <think> block unless
// thinking is on, which a reply with reasoning does not start with.
func thinkingKwargs(chosen, rejected Message) map[string]bool {
	return map[string]bool{"enable_thinking": reasons(chosen) || reasons(rejected)}
}

// reasons reports whether m carries reasoning a template writes as a
// <think> block: under its key, or as a </think> in its text (a hermes
// text action's <think> block).
func reasons(m Message) bool {
	return strings.TrimSpace(m.Reasoning()) != "" || strings.Contains(m.Content, "</think>")
}

// emptyThought is the <think> block Nemotron-3-Nano's template writes
// for empty reasoning (nemotron_3_nano.jinja:108).
const emptyThought = "<think>\n\n</think>\n"

// fitPair fits a pair to o's template where the kwargs alone cannot:
// with thinking on, Nemotron-3-Nano's generation prompt ends in
// "<think>\n", and a reply without reasoning renders "<think></think>"
// (nemotron_3_nano.jinja:113-114), so in a pair of which only one reply
// reasons, the other gets the empty <think> block the model writes, with
// thinking on, when it has nothing to think.
func fitPair(ex DPOExample, o ChatOptions) DPOExample {
	if o.Template != "nemotron_3_nano" || !ex.ChatTemplateKwargs["enable_thinking"] {
		return ex
	}
	for _, side := range [][]Message{ex.Chosen, ex.Rejected} {
		if m := &side[0]; !reasons(*m) {
			m.Content = emptyThought + m.Content
		}
	}
	return ex
}
