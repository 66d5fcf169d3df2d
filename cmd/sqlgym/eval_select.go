package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/examples/rewards"
	"github.com/sqlgym/sqlgym/reward/evaluate"
	"github.com/sqlgym/sqlgym/schemas"
)

// matchRule settles the match mode of spec and says where it came from:
// --match; else a --reward spec file that names one; else the dataset
// layout's own benchmark (Spider's rule on a spider dataset, BIRD's on a
// bird one); else, for jsonl, the reward spec's.
func (f *evalFlags) matchRule(spec *schemas.RewardSpec) (string, error) {
	if f.match != "" {
		return "--match", nil
	}
	if named, err := specFileNamesMatch(f.rewardFile); err != nil || named {
		return "--reward " + f.rewardFile, err
	}
	src, err := datasets.ParseSource(f.dataset)
	if err != nil {
		return "", usageError{fmt.Sprintf("--dataset %q: %v", f.dataset, err)}
	}
	if mode := evaluate.BenchmarkMatch(src.Format); mode != "" {
		spec.Match = mode
		return fmt.Sprintf("the %s benchmark's rule, the default for a %s dataset; --match to change", src.Format, src.Format), nil
	}
	return fmt.Sprintf("the reward spec's; a %s dataset names no benchmark; --match to change", src.Format), nil
}

// specFileNamesMatch reports whether --reward is a spec file (not a
// preset, whose match is the generic default) with a "match" key.
func specFileNamesMatch(value string) (bool, error) {
	if value == "" {
		return false, nil
	}
	if _, preset := rewards.JSON(value); preset {
		return false, nil
	}
	raw, err := os.ReadFile(value)
	if err != nil {
		return false, fmt.Errorf("--reward: %w", err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return false, fmt.Errorf("--reward %s: %w", value, err)
	}
	_, ok := keys["match"]
	return ok, nil
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
