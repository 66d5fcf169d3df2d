package export

import (
	"fmt"
	"slices"
)

// Targets: the consumer an sft file is shaped for. They differ in how a
// call's arguments are written and what goes beside the file:
//
//   - openai: arguments a JSON string, as OpenAI's fine-tuning files
//     (and its chat API) carry them;
//   - trl: arguments a JSON object and tool turns naming their tool, as
//     TRL's dataset-formats doc gives them to SFTTrainer;
//   - llamafactory: arguments a JSON object (LLaMA-Factory's openai
//     converter json.dumps the calls again, so a string would arrive
//     double-encoded), and a dataset_info.json entry beside the file
//     (DatasetInfoEntry).
//
// dpo writes TRL's conversational preference format, with trl's messages.
const (
	TargetOpenAI       = "openai"
	TargetTRL          = "trl"
	TargetLlamaFactory = "llamafactory"
)

// Targets lists the targets of the sft format, the default first.
func Targets() []string { return []string{TargetOpenAI, TargetTRL, TargetLlamaFactory} }

// ResolveTarget checks target against format and returns the one to
// write: for sft, target or openai when it is empty; for dpo, trl (the
// only one); for raw, none.
func ResolveTarget(format, target string) (string, error) {
	switch format {
	case FormatSFT:
		if target == "" {
			return TargetOpenAI, nil
		}
		if !slices.Contains(Targets(), target) {
			return "", fmt.Errorf("unknown target %q for sft (want openai, trl or llamafactory)", target)
		}
		return target, nil
	case FormatDPO:
		if target != "" && target != TargetTRL {
			return "", fmt.Errorf("dpo writes TRL's preference format only: --target trl or no --target, not %q", target)
		}
		return TargetTRL, nil
	default:
		if target != "" {
			return "", fmt.Errorf("%s takes no target (got %q): targets shape sft and dpo messages", format, target)
		}
		return "", nil
	}
}
