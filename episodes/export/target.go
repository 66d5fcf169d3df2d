package export

import (
	"fmt"
	"slices"
)

// Targets: the consumer an sft file is shaped for.
//
//   - trl (the default): the OpenAI chat shape as Hugging Face chat
//     templates take it through TRL's trainers: arguments as objects
//     (ArgumentsString for templates that concatenate them), tool turns
//     naming their tool, reasoning beside the content (under
//     reasoning_content, or thinking: ChatOptions.ReasoningKey);
//   - openai: an OpenAI fine-tuning file: arguments as JSON strings, no
//     reasoning (its format has no field for it);
//   - llamafactory: LLaMA-Factory's sharegpt layout (LFExample), whose
//     every value is a string, with a dataset_info.json entry beside the
//     file (DatasetInfoEntry).
//
// dpo writes TRL's conversational preference format, with trl's messages
// (the default), or, for llamafactory, LLaMA-Factory's sharegpt ranking
// layout (LFPair).
const (
	TargetTRL          = "trl"
	TargetOpenAI       = "openai"
	TargetLlamaFactory = "llamafactory"
)

// Targets lists the targets of the sft format, the default first.
func Targets() []string { return []string{TargetTRL, TargetOpenAI, TargetLlamaFactory} }

// ResolveTarget checks target against format and returns the one to
// write: for sft, target or trl when it is empty; for dpo, trl or
// llamafactory (trl when it is empty); for raw, none.
func ResolveTarget(format, target string) (string, error) {
	switch format {
	case FormatSFT:
		if target == "" {
			return TargetTRL, nil
		}
		if !slices.Contains(Targets(), target) {
			return "", fmt.Errorf("unknown target %q for sft (want trl, openai or llamafactory)", target)
		}
		return target, nil
	case FormatDPO:
		switch target {
		case "", TargetTRL:
			return TargetTRL, nil
		case TargetLlamaFactory:
			return target, nil
		}
		return "", fmt.Errorf("dpo writes TRL's or LLaMA-Factory's preference format: --target trl (the default) or llamafactory, not %q", target)
	default:
		if target != "" {
			return "", fmt.Errorf("%s takes no target (got %q): targets shape sft and dpo messages", format, target)
		}
		return "", nil
	}
}

// Text action renderings (ChatOptions.TextActions).
const (
	// TextActionsCalls writes a hermes text action as its parsed calls,
	// with the text outside them as content.
	TextActionsCalls = "calls"
	// TextActionsText writes every text action as its raw text, with no
	// calls, and what came back as a user turn.
	TextActionsText = "text"
)

// ChatOptions say how steps become messages.
type ChatOptions struct {
	// Target is the consumer the messages are shaped for (Target*);
	// Run sets it with ResolveTarget.
	Target string
	// Arguments is the shape of a call's arguments (Arguments*); empty
	// means the target's: a string for openai, an object otherwise.
	Arguments string
	// TextActions is how a text action is written (TextActions*); empty
	// means calls.
	TextActions string
	// SplitCalls writes a turn of several calls as one assistant message
	// per call, each followed by its tool message, for chat templates
	// that hold one call per assistant message (Llama-3.x, gpt-oss). The
	// turn's content and reasoning go with its first call.
	SplitCalls bool
	// Template names the chat template the trl rows are for (one of
	// TemplateNames, or with its _training suffix); it sets
	// ReasoningKey to the key the template reads, and fits the rows
	// where the template would raise on them (fitTemplate). Empty: none.
	Template string
	// ReasoningKey is the key of an assistant message's reasoning, for
	// trl: reasoning_content (the default) or thinking (ReasoningKeys).
	ReasoningKey string
}

// Resolve checks o against its (resolved) target and fills in the
// defaults: OpenAI's files carry arguments as strings, and LLaMA-Factory
// encodes them itself (its FunctionFormatter json.dumps them), so each
// takes only its own shape.
func (o ChatOptions) Resolve() (ChatOptions, error) {
	want := ArgumentsObject
	if o.Target == TargetOpenAI {
		want = ArgumentsString
	}
	switch {
	case o.Arguments == "":
		o.Arguments = want
	case o.Arguments != ArgumentsObject && o.Arguments != ArgumentsString:
		return o, fmt.Errorf("unknown arguments shape %q (want object or string)", o.Arguments)
	case o.Arguments != want && o.Target != TargetTRL:
		return o, fmt.Errorf("target %s takes arguments as %s only, not %s", o.Target, want, o.Arguments)
	}
	switch o.TextActions {
	case "":
		o.TextActions = TextActionsCalls
	case TextActionsCalls, TextActionsText:
	default:
		return o, fmt.Errorf("unknown text action rendering %q (want calls or text)", o.TextActions)
	}
	return o.resolveReasoning()
}
