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
// (example.get("tools")); left out when no message holds a call, as in
// SFTExample.
type DPOExample struct {
	Prompt   []Message      `json:"prompt"`
	Chosen   []Message      `json:"chosen"`
	Rejected []Message      `json:"rejected"`
	Tools    []schemas.Tool `json:"tools,omitempty"`
	// ChatTemplateKwargs go to the chat template with each rendering
	// (TRL's DPOTrainer passes example.get("chat_template_kwargs")):
	// {"enable_thinking": true} when either completion carries
	// reasoning, false when neither does (see thinkingKwargs), so that
	// in the templates whose generation prompt depends on it (Qwen3.5's
	// small models, Nemotron-3-Nano) a completion starts where the
	// prompt ends. The other templates of docs/trajectories-offline.md
	// render a pair alike with it or without it.
	ChatTemplateKwargs map[string]bool `json:"chat_template_kwargs"`
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
// max > 0 keeps at most max pairs (the widest first). o must be
// resolved; an episode it cannot render (see Completion) is in no pair.
//
// Each pair is cut where the two chats part (see Diverge): the prompt is
// what they share, and each completion is the one assistant message that
// differs. A pair whose chats never part is skipped.
func Pairs(group []*trajlog.Record, o ChatOptions, max int) []DPOExample {
	ranked := slices.Clone(group)
	slices.SortStableFunc(ranked, rankCompare)
	var out []DPOExample
	for i, j := 0, len(ranked)-1; i < j && Better(ranked[i], ranked[j]); i, j = i+1, j-1 {
		if max > 0 && len(out) >= max {
			break
		}
		chosen, err1 := chat(ranked[i], o)
		rejected, err2 := chat(ranked[j], o)
		if err1 != nil || err2 != nil {
			continue
		}
		ex, ok := Diverge(chosen, rejected)
		if !ok {
			continue
		}
		ex = fitPair(ex, o)
		if hasCalls(ex.Prompt, ex.Chosen, ex.Rejected) || native(ranked[i]) {
			ex.Tools = tools.Recorded(ranked[i].Tools).Definitions()
			ex.Prompt = withToolList(ex.Prompt, ex.Tools, ranked[i], o)
		}
		out = append(out, ex)
	}
	return out
}

// chat is an episode's whole chat: its prompt and its Completion.
func chat(rec *trajlog.Record, o ChatOptions) ([]Message, error) {
	done, err := Completion(rec, o)
	return append(Prompt(rec), done...), err
}

// Diverge cuts two chats of the same prompt where they part: the prompt
// is the messages they share (system, user, and every turn both took
// alike, tool and user turns included), and chosen and rejected are the
// first message where they differ, which must be an assistant message in
// both; ok is false when they never differ, or first differ in what came
// back (the same call answered otherwise). Messages are compared without
// their call ids, which a model may draw at random.
//
// So each completion holds only what the model wrote, one reply, and no
// tool output: DPO's loss, which covers every completion token, then
// weighs the first reply where the episodes went apart, given the same
// history, and nothing the environment wrote. The prompt ends on a user
// or tool turn, so the chat template's generation prompt after it is
// where either reply starts.
func Diverge(chosen, rejected []Message) (DPOExample, bool) {
	n := 0
	for n < len(chosen) && n < len(rejected) && sameMessage(chosen[n], rejected[n]) {
		n++
	}
	if n == len(chosen) || n == len(rejected) || chosen[n].Role != "assistant" || rejected[n].Role != "assistant" {
		return DPOExample{}, false
	}
	return DPOExample{Prompt: chosen[:n], Chosen: chosen[n : n+1], Rejected: rejected[n : n+1],
		ChatTemplateKwargs: thinkingKwargs(chosen[n], rejected[n])}, true
}

// sameMessage reports whether a and b are alike but for call ids.
func sameMessage(a, b Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ReasoningContent == b.ReasoningContent && a.Thinking == b.Thinking && a.Name == b.Name &&
		slices.EqualFunc(a.ToolCalls, b.ToolCalls, func(x, y ToolCall) bool {
			return x.Type == y.Type && x.Function.Name == y.Function.Name && bytes.Equal(x.Function.Arguments, y.Function.Arguments)
		})
}
