// Package export turns stored trajectories into training files: sft (one
// chat per episode, with tool calls, shaped for a target consumer: TRL
// and Hugging Face chat templates, OpenAI fine-tuning, or LLaMA-Factory),
// dpo (preference pairs of episodes of the same prompt, cut where they
// part, in TRL's conversational preference format or LLaMA-Factory's
// sharegpt ranking layout) and raw (the trajectory records, which
// RawFile and ReadRaw read back). Run applies the quality filters and
// counts what each one dropped.
//
// Every export writes an assistant turn once: a text action is either
// its parsed calls with the text outside them as content, or its raw
// text with no calls (see readTurn).
package export

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// Formats of an export.
const (
	FormatSFT = "sft"
	FormatDPO = "dpo"
	FormatRaw = "raw"
)

// Formats lists the formats Run writes.
func Formats() []string { return []string{FormatSFT, FormatDPO, FormatRaw} }

// Options say what Run keeps and how it writes it.
type Options struct {
	Format     string   // sft, dpo or raw
	Incomplete bool     // keep episodes whose end was never recorded
	Outcome    string   // keep only episodes with this outcome
	MinReward  *float64 // keep only episodes with total_reward >= MinReward
	// Dedup drops an episode whose actions are those of an episode of the
	// same prompt already kept.
	Dedup bool
	// BestPerTask > 0 keeps, for sft and raw, the best BestPerTask
	// episodes of each task (ranked as Pairs ranks them); for dpo, at
	// most BestPerTask pairs per prompt.
	BestPerTask int
	// Chat says how steps become messages; Run checks it and fills in
	// its defaults (ResolveTarget, ChatOptions.Resolve).
	Chat ChatOptions
	// PromptStyle native writes, for sft and dpo, a text-style episode's
	// system prompt as the native style's, where its turns allow
	// (DropPromptStyle); empty writes each prompt as played.
	PromptStyle string
	// Progress, when set, is told how many episodes have been read,
	// after each one.
	Progress func(read int)
}

// Names of the filters in Report.Dropped, in the order they apply.
const (
	DropNoSteps    = "no-steps" // sft and dpo: closed before any action, nothing to learn from
	DropIncomplete = "incomplete"
	DropOutcome    = "outcome"
	DropMinReward  = "min-reward"
	// DropUnrenderable (sft and dpo): the target cannot write a turn as
	// the model made it: a call whose arguments are not a JSON object
	// (it failed with bad_arguments), which neither OpenAI's format nor a
	// chat template takes as a call, or (llamafactory) text beside calls
	// that holds <tool_call>.
	DropUnrenderable = "unrenderable"
	DropDuplicate    = "dedup"
	DropBestPerTask  = "best-per-task"
)

// Report says what Run read, what each filter dropped, and what it wrote.
type Report struct {
	Format  string
	Read    int            // episodes read from the store
	Dropped map[string]int // by filter name (Drop*)
	Kept    int            // episodes that passed every filter
	Written int            // lines written: episodes (sft, raw) or pairs (dpo)
	// Prompts and Unpaired are for dpo: the distinct prompts among the
	// kept episodes, and the kept episodes that are in no pair.
	Prompts, Unpaired int
	// restyled says the export re-rendered prompts (Options.PromptStyle),
	// for Summary's DropPromptStyle line.
	restyled bool
}

// Run reads the episodes sel selects (incomplete ones included, so they
// can be counted), applies the filters of o in the order of the Drop*
// names, and writes the kept episodes to w in o.Format, one JSON line
// each (one pair per line for dpo).
func Run(ctx context.Context, rd trajlog.Reader, sel trajlog.Filter, o Options, w io.Writer) (*Report, error) {
	if !slices.Contains(Formats(), o.Format) {
		return nil, fmt.Errorf("export: unknown format %q (want sft, dpo or raw)", o.Format)
	}
	target, err := ResolveTarget(o.Format, o.Chat.Target)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	o.Chat.Target = target
	if err := CheckPromptStyle(o.Format, o.PromptStyle); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if o.Format != FormatRaw {
		if o.Chat, err = o.Chat.Resolve(); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	x := &exporter{o: o, enc: json.NewEncoder(w), seen: map[[32]byte]bool{}, groups: map[string]int{},
		rep: &Report{Format: o.Format, Dropped: map[string]int{}, restyled: o.PromptStyle != ""}}
	x.enc.SetEscapeHTML(false)
	sel.Incomplete = true
	if err := rd.Episodes(ctx, sel, x.take); err != nil {
		return x.rep, err
	}
	return x.rep, x.finish()
}

// exporter is the state of one Run.
type exporter struct {
	o   Options
	enc *json.Encoder
	rep *Report

	seen   map[[32]byte]bool   // dedup keys of kept episodes
	groups map[string]int      // prompt or task key -> index in held
	held   [][]*trajlog.Record // episodes held for ranking or pairing
}

// take filters one episode, then writes it or holds it.
func (x *exporter) take(rec *trajlog.Record) error {
	x.rep.Read++
	if x.o.Progress != nil {
		x.o.Progress(x.rep.Read)
	}
	f := x.selectBy(rec)
	if f == "" && x.o.PromptStyle == schemas.PromptStyleNative {
		rec, f = restyle(rec)
	}
	if f == "" {
		f = x.renderBy(rec)
	}
	if f != "" {
		x.rep.Dropped[f]++
		return nil
	}
	x.rep.Kept++
	if x.o.Format != FormatDPO && x.o.BestPerTask == 0 {
		return x.write(rec)
	}
	key := rec.Task.TaskID
	if x.o.Format == FormatDPO {
		key = promptKey(rec)
	}
	i, ok := x.groups[key]
	if !ok {
		i = len(x.held)
		x.groups[key] = i
		x.held = append(x.held, nil)
	}
	x.held[i] = append(x.held[i], rec)
	return nil
}

// selectBy names the first selecting filter rec fails, or "".
func (x *exporter) selectBy(rec *trajlog.Record) string {
	switch {
	case len(rec.Steps) == 0 && x.o.Format != FormatRaw:
		return DropNoSteps
	case !rec.Complete && !x.o.Incomplete:
		return DropIncomplete
	case x.o.Outcome != "" && rec.Outcome != x.o.Outcome:
		return DropOutcome
	case x.o.MinReward != nil && rec.TotalReward < *x.o.MinReward:
		return DropMinReward
	}
	return ""
}

// renderBy names the first filter rec fails once its prompt is as
// written (DropUnrenderable, DropDuplicate), or "".
func (x *exporter) renderBy(rec *trajlog.Record) string {
	if x.o.Format != FormatRaw && x.row(rec) == nil {
		return DropUnrenderable
	}
	if x.o.Dedup {
		k := actionsKey(rec)
		if x.seen[k] {
			return DropDuplicate
		}
		x.seen[k] = true
	}
	return ""
}

// finish writes what was held: the best of each task, or the pairs of
// each prompt.
func (x *exporter) finish() error {
	for _, group := range x.held {
		if x.o.Format == FormatDPO {
			if err := x.pairs(group); err != nil {
				return err
			}
			continue
		}
		slices.SortStableFunc(group, rankCompare)
		if n := x.o.BestPerTask; len(group) > n {
			x.rep.Dropped[DropBestPerTask] += len(group) - n
			x.rep.Kept -= len(group) - n
			group = group[:n]
		}
		for _, rec := range group {
			if err := x.write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

func (x *exporter) pairs(group []*trajlog.Record) error {
	x.rep.Prompts++
	pairs := Pairs(group, x.o.Chat, x.o.BestPerTask)
	x.rep.Unpaired += len(group) - 2*len(pairs)
	for _, p := range pairs {
		var line any = p
		if x.o.Chat.Target == TargetLlamaFactory {
			lf, err := LlamaFactoryPair(p)
			if err != nil {
				return fmt.Errorf("export: a llamafactory pair: %w", err)
			}
			line = lf
		}
		if err := x.encode(line); err != nil {
			return err
		}
	}
	return nil
}

// write writes one episode in the sft or raw format.
func (x *exporter) write(rec *trajlog.Record) error {
	if x.o.Format == FormatRaw {
		complete := rec.Complete
		return x.encode(rawLine{Trajectory: rec.Trajectory, Complete: &complete})
	}
	return x.encode(x.row(rec))
}

// row is rec's sft line for the target (nil when the target cannot write
// it); for dpo, its chat (for llamafactory, its sft line, which holds
// every message a pair of it can).
func (x *exporter) row(rec *trajlog.Record) any {
	var v any
	var err error
	switch {
	case x.o.Format == FormatDPO && x.o.Chat.Target != TargetLlamaFactory:
		v, err = chat(rec, x.o.Chat)
	case x.o.Chat.Target == TargetLlamaFactory:
		v, err = LlamaFactory(rec, x.o.Chat)
	default:
		v, err = SFT(rec, x.o.Chat)
	}
	if err != nil {
		return nil
	}
	return v
}

func (x *exporter) encode(v any) error {
	if err := x.enc.Encode(v); err != nil {
		return fmt.Errorf("export: write: %w", err)
	}
	x.rep.Written++
	return nil
}

// promptKey identifies an episode's prompt: its task and its messages.
func promptKey(rec *trajlog.Record) string {
	b, _ := json.Marshal(rec.Messages)
	sum := sha256.Sum256(b)
	return rec.Task.TaskID + "\x00" + string(sum[:])
}

// actionsKey identifies an episode's prompt and the actions taken.
func actionsKey(rec *trajlog.Record) [32]byte {
	h := sha256.New()
	h.Write([]byte(promptKey(rec)))
	for _, st := range rec.Steps {
		b, _ := json.Marshal(st.Action)
		h.Write(b)
		h.Write([]byte{0})
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}
