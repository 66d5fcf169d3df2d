package export

import (
	"bytes"
	"slices"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// DPOExample is one line of a dpo export, in TRL's conversational
// preference shape: the shared prompt, the two completions, and the tool
// definitions, which TRL's DPOTrainer passes to the chat template
// (example.get("tools")) so that the prompt lists the tools the
// completions call.
type DPOExample struct {
	Prompt   []Message      `json:"prompt"`
	Chosen   []Message      `json:"chosen"`
	Rejected []Message      `json:"rejected"`
	Tools    []schemas.Tool `json:"tools"`
}

// Better reports whether a is strictly preferred to b: a correct episode
// over one that is not, and between two alike in that, the higher
// total_reward.
func Better(a, b *trajlog.Record) bool {
	ca, cb := a.Outcome == schemas.OutcomeCorrect, b.Outcome == schemas.OutcomeCorrect
	if ca != cb {
		return ca
	}
	return a.TotalReward > b.TotalReward
}

// rankCompare orders episodes best first: Better, then fewer steps, then
// the earlier start.
func rankCompare(a, b *trajlog.Record) int {
	switch {
	case Better(a, b):
		return -1
	case Better(b, a):
		return 1
	case len(a.Steps) != len(b.Steps):
		return len(a.Steps) - len(b.Steps)
	}
	return a.StartedAt.Compare(b.StartedAt)
}

// Pairs builds preference pairs from the episodes of one prompt (the same
// task_id, and the same prompt messages). The episodes are ranked best
// first (see Better; ties go to fewer steps, then the earlier start);
// the i-th best is paired with the i-th worst, for i = 0, 1, ..., while
// the better of the two is strictly Better than the worse. Each episode
// is in at most one pair, so the pairs are the widest margins available.
// A pair whose two completions are the same text is skipped. max > 0
// keeps at most max pairs (the widest first).
//
// A completion ends with the last action (see Completion): the
// observation after it is the environment's verdict ("Submitted.
// Correct."), not the model's text, and would hand the preference its
// answer.
func Pairs(group []*trajlog.Record, o ChatOptions, max int) []DPOExample {
	ranked := slices.Clone(group)
	slices.SortStableFunc(ranked, rankCompare)
	var out []DPOExample
	for i, j := 0, len(ranked)-1; i < j && Better(ranked[i], ranked[j]); i, j = i+1, j-1 {
		if max > 0 && len(out) >= max {
			break
		}
		chosen, rejected := Completion(ranked[i], o), Completion(ranked[j], o)
		if sameMessages(chosen, rejected) {
			continue
		}
		out = append(out, DPOExample{Prompt: Prompt(ranked[i]), Chosen: chosen, Rejected: rejected,
			Tools: tools.Recorded(ranked[i].Tools).Definitions()})
	}
	return out
}

func sameMessages(a, b []Message) bool {
	return slices.EqualFunc(a, b, func(x, y Message) bool {
		return x.Role == y.Role && x.Content == y.Content && x.ToolCallID == y.ToolCallID &&
			slices.EqualFunc(x.ToolCalls, y.ToolCalls, sameCall)
	})
}

func sameCall(a, b ToolCall) bool {
	return a.ID == b.ID && a.Type == b.Type && a.Function.Name == b.Function.Name &&
		bytes.Equal(a.Function.Arguments, b.Function.Arguments)
}
