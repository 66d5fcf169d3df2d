package export

import (
	"fmt"
	"strings"
)

// dropNotes say what each filter dropped, for Summary.
var dropNotes = []struct{ name, note string }{
	{DropNoSteps, "no step taken: no assistant turn to train on"},
	{DropIncomplete, "end never recorded (--incomplete keeps them)"},
	{DropOutcome, "other outcome (--outcome)"},
	{DropMinReward, "total_reward below --min-reward"},
	{DropPromptStyle, "text-style episode with a text action: its turns keep the text prompt's call syntax (--prompt-style native)"},
	{DropUnrenderable, "a turn the target cannot write as made (docs/trajectories-offline.md#unrenderable)"},
	{DropDuplicate, "same prompt and actions as a kept episode (--dedup)"},
	{DropBestPerTask, "beyond the best N of their task (--best-per-task)"},
}

// Summary is the report as lines of text: episodes read, the count each
// filter dropped (in the order they apply), and what was written.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "read %d episodes\n", r.Read)
	for _, d := range dropNotes {
		if d.name == DropBestPerTask && r.Format == FormatDPO || d.name == DropUnrenderable && r.Format == FormatRaw ||
			d.name == DropPromptStyle && !r.restyled {
			continue
		}
		fmt.Fprintf(&b, "dropped %6d  %-13s  %s\n", r.Dropped[d.name], d.name, d.note)
	}
	if r.Format == FormatDPO {
		fmt.Fprintf(&b, "kept %d episodes of %d prompts; wrote %d dpo pairs; %d episodes in no pair\n",
			r.Kept, r.Prompts, r.Written, r.Unpaired)
		return b.String()
	}
	fmt.Fprintf(&b, "kept %d episodes; wrote %d %s lines\n", r.Kept, r.Written, r.Format)
	return b.String()
}
