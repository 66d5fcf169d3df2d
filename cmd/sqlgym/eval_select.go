package main

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/examples/rewards"
	"github.com/sqlgym/sqlgym/reward/evaluate"
	"github.com/sqlgym/sqlgym/schemas"
)

// matchRule settles the match mode of spec (evaluate.SettleMatch) and
// says where it came from: --match; else a --reward spec file that names
// one; else the dataset layout's own benchmark (Spider's rule on a spider
// dataset, BIRD's on a bird one); else, for jsonl, the reward spec's.
func (f *evalFlags) matchRule(spec *schemas.RewardSpec) (string, error) {
	given, named := f.match != "", false
	if !given {
		var err error
		if named, err = rewards.NamesMatch(f.rewardFile); err != nil {
			return "--reward " + f.rewardFile, fmt.Errorf("--reward: %w", err)
		}
	}
	src, err := datasets.ParseSource(f.dataset)
	if err != nil {
		return "", usageError{fmt.Sprintf("--dataset %q: %v", f.dataset, err)}
	}
	switch evaluate.SettleMatch(spec, src.Format, given, named) {
	case evaluate.MatchGiven:
		return "--match", nil
	case evaluate.MatchSpecFile:
		return "--reward " + f.rewardFile, nil
	case evaluate.MatchBenchmark:
		return fmt.Sprintf("the %s benchmark's rule, the default for a %s dataset; --match to change", src.Format, src.Format), nil
	}
	return fmt.Sprintf("the reward spec's; a %s dataset names no benchmark; --match to change", src.Format), nil
}

// selection is the tasks --tasks and --limit pick.
func (f *evalFlags) selection() evaluate.Selection {
	var ids []string
	for _, id := range strings.Split(f.tasks, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return evaluate.Selection{TaskIDs: ids, Limit: f.limit}
}

// subsetNote tells, in the summary's first line, that only some tasks
// were scored, and by which flags.
func (f *evalFlags) subsetNote(ds *env.Dataset) string {
	var by []string
	if f.tasks != "" {
		by = append(by, "--tasks")
	}
	if f.limit > 0 {
		by = append(by, "--limit")
	}
	if len(by) == 0 {
		return ""
	}
	return fmt.Sprintf(" (of %d tasks: %s)", len(ds.Tasks), strings.Join(by, ", "))
}

// alignHint says how to score a file of fewer predictions than tasks.
func (f *evalFlags) alignHint(ds *env.Dataset, preds []evaluate.Prediction) string {
	if f.selection().All() && len(preds) > 0 && len(preds) < len(ds.Tasks) {
		return fmt.Sprintf("; to score the first %d tasks only, give --limit %d", len(preds), len(preds))
	}
	return ""
}
