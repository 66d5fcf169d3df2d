package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/base/progress"
	"github.com/sqlgym/sqlgym/episodes/export"
)

// exportFlags are the flags of sqlgym export.
type exportFlags struct {
	dataDir      string
	trajectories string
	filter       filterFlags
	damage       damageFlags
	format       string
	target       string
	bestPerTask  int
	dedup        bool
	arguments    string
	textActions  string
	splitCalls   bool
	promptStyle  string
	reasoning    reasoningFlags
	out          string
}

func (f *exportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dataDir, "data-dir", defaultDataDir, "where serve kept the trajectory log")
	fs.StringVar(&f.trajectories, "trajectories", "", "where episodes were recorded: empty for the log under --data-dir, a postgres:// URL, or a file of records")
	f.filter.register(fs)
	f.damage.register(fs)
	fs.StringVar(&f.format, "format", "", "output format: sft, dpo or raw (required)")
	fs.StringVar(&f.target, "target", "", "who reads the file: sft: trl (default: Hugging Face chat templates), openai or llamafactory (also writes dataset_info.json beside --out); dpo: trl (default) or llamafactory (its ranking layout, with dataset_info.json)")
	fs.IntVar(&f.bestPerTask, "best-per-task", 0, "sft, raw: keep the best `N` episodes of each task; dpo: at most N pairs per prompt (0: no limit)")
	fs.BoolVar(&f.dedup, "dedup", false, "drop an episode whose actions repeat those of a kept episode of the same prompt")
	fs.StringVar(&f.arguments, "arguments", "", "sft, dpo: a call's arguments as an `object` (trl and llamafactory's default) or a JSON string (openai's; trl for templates that concatenate them, DeepSeek-V3's)")
	fs.StringVar(&f.textActions, "text-actions", "calls", "sft, dpo: a hermes text action as its parsed calls with the text beside them (calls), or as its raw text with no calls (text); tags actions are always text")
	fs.BoolVar(&f.splitCalls, "split-calls", false, "sft, dpo: one assistant message per call, each followed by its tool message, for templates that hold one call per message (Llama-3.x, gpt-oss)")
	f.reasoning.register(fs)
	fs.StringVar(&f.promptStyle, "prompt-style", "", "sft, dpo: native writes a text-style episode's system prompt as the native style's (the task and the rules; the chat template's tools= shows the tools), where every turn was a native call; an episode with a text action is dropped as prompt-style (empty: each prompt as played)")
	fs.StringVar(&f.out, "out", "", "write to this `file` (default: standard output, with the report on standard error)")
}

// chatOptions checks the flags that shape the file (--format,
// --best-per-task, --target and the chat options, --out where the target
// needs it) and returns the chat options they give.
func (f *exportFlags) chatOptions() (export.ChatOptions, error) {
	if !slices.Contains(export.Formats(), f.format) {
		return export.ChatOptions{}, usageError{fmt.Sprintf("export: --format must be one of %s, got %q", strings.Join(export.Formats(), ", "), f.format)}
	}
	if f.bestPerTask < 0 {
		return export.ChatOptions{}, usageError{"export: --best-per-task must be >= 0"}
	}
	target, err := export.ResolveTarget(f.format, f.target)
	if err != nil {
		return export.ChatOptions{}, usageError{"export: --target: " + err.Error()}
	}
	chat := export.ChatOptions{Target: target, Arguments: f.arguments, TextActions: f.textActions, SplitCalls: f.splitCalls,
		Template: f.reasoning.template, ReasoningKey: f.reasoning.key}
	if f.format != export.FormatRaw {
		if _, err := chat.Resolve(); err != nil {
			return export.ChatOptions{}, usageError{"export: " + err.Error()}
		}
	}
	if err := export.CheckPromptStyle(f.format, f.promptStyle); err != nil {
		return export.ChatOptions{}, usageError{"export: --prompt-style: " + err.Error()}
	}
	if target == export.TargetLlamaFactory && f.out == "" {
		return export.ChatOptions{}, usageError{"export: --target llamafactory needs --out: its dataset_info.json entry is written beside the file"}
	}
	return chat, nil
}

// runExport writes training files from the recorded episodes and reports
// what each filter kept and dropped, and the damage found in the log.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", stderr)
	var f exportFlags
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	chat, err := f.chatOptions()
	if err != nil {
		return err
	}
	target := chat.Target
	sel, err := f.filter.filter()
	if err != nil {
		return err
	}
	// The quality filters are applied, and counted, by the export itself.
	opts := export.Options{Format: f.format, Incomplete: sel.Incomplete, Outcome: sel.Outcome, MinReward: sel.MinReward,
		Dedup: f.dedup, BestPerTask: f.bestPerTask, Chat: chat, PromptStyle: f.promptStyle,
		Progress: progress.NewCounter(stderr, "export", "episodes read").Update}
	sel.Outcome, sel.MinReward = "", nil
	rd, closer, err := openTrajectoryReader(ctx, f.trajectories, f.dataDir)
	if err != nil {
		return err
	}
	defer closer.Close()
	rd = f.filter.reader(rd)
	var rep *export.Report
	write := func(w io.Writer) error {
		rep, err = export.Run(ctx, rd, sel, opts, w)
		return err
	}
	report := stdout
	if f.out == "" {
		report = stderr
		bw := bufio.NewWriterSize(stdout, 1<<20)
		if err = write(bw); err == nil {
			err = bw.Flush()
		}
	} else {
		err = writeFile(f.out, write)
	}
	if rep != nil {
		fmt.Fprint(report, rep.Summary())
	}
	if err == nil && target == export.TargetLlamaFactory {
		err = writeDatasetInfo(f.out, f.format, report)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return f.damage.report(stderr, "export", rd)
}

// writeDatasetInfo adds (or replaces) the entry of the file out (of
// format sft or dpo) in the dataset_info.json of its folder, which
// LLaMA-Factory reads as its dataset_dir, keeping every other entry.
// The entry is named for the file, without its extension.
func writeDatasetInfo(out, format string, report io.Writer) error {
	path, name, merged, err := export.DatasetInfoUpdate(out, format)
	if err != nil {
		return err
	}
	err = writeFile(path, func(w io.Writer) error {
		_, err := w.Write(merged)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s beside %w", export.DatasetInfoFile, err)
	}
	fmt.Fprintf(report, "wrote the LLaMA-Factory dataset %q to %s (dataset_dir %s)\n", name, path, filepath.Dir(path))
	return nil
}
