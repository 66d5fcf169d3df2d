package evaluate

import (
	"fmt"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/schemas"
)

// Selection picks the tasks an evaluation scores: those named in TaskIDs
// (every task when empty), then the first Limit of them (all when 0).
// Selected tasks keep the dataset's order.
type Selection struct {
	TaskIDs []string
	Limit   int
}

// All reports whether the selection takes every task.
func (s Selection) All() bool { return len(s.TaskIDs) == 0 && s.Limit == 0 }

// indexes returns the positions of the selected tasks in ds, or an error
// naming a task id ds does not have or one named twice.
func (s Selection) indexes(ds *env.Dataset) ([]int, error) {
	if s.Limit < 0 {
		return nil, fmt.Errorf("limit %d: want 0 (all) or more", s.Limit)
	}
	var idx []int
	if len(s.TaskIDs) == 0 {
		idx = make([]int, len(ds.Tasks))
		for i := range idx {
			idx[i] = i
		}
	} else {
		pos := make(map[string]int, len(ds.Tasks))
		for i := range ds.Tasks {
			pos[ds.Tasks[i].ID] = i
		}
		chosen := make(map[int]bool, len(s.TaskIDs))
		for _, id := range s.TaskIDs {
			i, ok := pos[id]
			if !ok {
				return nil, fmt.Errorf("no task %q in %s (its ids run %s to %s)", id, ds.Name, ds.Tasks[0].ID, ds.Tasks[len(ds.Tasks)-1].ID)
			}
			if chosen[i] {
				return nil, fmt.Errorf("task %q named twice", id)
			}
			chosen[i] = true
		}
		for i := range ds.Tasks {
			if chosen[i] {
				idx = append(idx, i)
			}
		}
	}
	if s.Limit > 0 && s.Limit < len(idx) {
		idx = idx[:s.Limit]
	}
	return idx, nil
}

// AlignSelected pairs the selected tasks with predictions. The file holds
// either one prediction per task of the dataset, in dataset order (the
// selected tasks' are scored, after Align has checked the whole file), or
// one per selected task, in dataset order.
func AlignSelected(ds *env.Dataset, preds []Prediction, sel Selection) ([]Item, error) {
	if len(ds.Tasks) == 0 || sel.All() {
		return Align(ds, preds)
	}
	idx, err := sel.indexes(ds)
	if err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	if len(preds) == len(ds.Tasks) {
		all, err := Align(ds, preds)
		if err != nil {
			return nil, err
		}
		items := make([]Item, len(idx))
		for j, i := range idx {
			items[j] = all[i]
		}
		return items, nil
	}
	if len(preds) != len(idx) {
		return nil, fmt.Errorf("align: %d predictions, but %s has %d tasks and %d are selected: want one prediction per task of the dataset, or one per selected task, in dataset order",
			len(preds), ds.Name, len(ds.Tasks), len(idx))
	}
	return pair(ds, preds, idx)
}

// BenchmarkMatch is the match mode of a dataset layout's own benchmark:
// Spider's rule for the spider layout, BIRD's for the bird layout; ""
// for jsonl, which names no benchmark.
func BenchmarkMatch(format string) string {
	switch format {
	case datasets.FormatSpider:
		return schemas.MatchSpider
	case datasets.FormatBird:
		return schemas.MatchBird
	}
	return ""
}

// MatchFrom says where an evaluation's match mode came from.
type MatchFrom int

// Where a match mode comes from, in the order SettleMatch looks.
const (
	MatchGiven     MatchFrom = iota // asked for by name (sqlgym eval --match)
	MatchSpecFile                   // named by the reward spec file
	MatchBenchmark                  // the dataset layout's own benchmark (BenchmarkMatch)
	MatchSpec                       // the reward spec's: the layout names no benchmark
)

// SettleMatch settles spec.Match for an evaluation of a dataset of the
// given format: a mode given by name (given), or named by the reward
// spec file (specNames), stays; else the layout's own benchmark's
// replaces it (Spider's rule on a spider dataset, BIRD's on a bird one);
// else, for jsonl, the spec's stays. It returns where the mode came from.
func SettleMatch(spec *schemas.RewardSpec, format string, given, specNames bool) MatchFrom {
	switch {
	case given:
		return MatchGiven
	case specNames:
		return MatchSpecFile
	}
	if mode := BenchmarkMatch(format); mode != "" {
		spec.Match = mode
		return MatchBenchmark
	}
	return MatchSpec
}
