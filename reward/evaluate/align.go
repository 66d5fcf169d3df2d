package evaluate

import (
	"fmt"

	"github.com/sqlgym/sqlgym/env"
)

// Item is one task with its prediction.
type Item struct {
	Task       *env.Task
	Prediction Prediction
	Index      int // the task's position in the dataset, from 0
}

// Align pairs the dataset's tasks with the predictions, in order: the
// i-th prediction answers the i-th task. It fails when the counts differ,
// saying both, and when a prediction names a db_id other than its task's,
// naming the first such line and how many more there are: a misaligned
// file is never scored.
func Align(ds *env.Dataset, preds []Prediction) ([]Item, error) {
	if len(preds) != len(ds.Tasks) {
		return nil, fmt.Errorf("align: %d predictions for %d tasks of %s: want one prediction per task, in dataset order",
			len(preds), len(ds.Tasks), ds.Name)
	}
	idx := make([]int, len(preds))
	for i := range idx {
		idx[i] = i
	}
	return pair(ds, preds, idx)
}

// pair pairs preds[j] with the task at position idx[j] of ds, refusing a
// db_id mismatch as Align does.
func pair(ds *env.Dataset, preds []Prediction, idx []int) ([]Item, error) {
	items := make([]Item, len(preds))
	var first error
	bad := 0
	for j, p := range preds {
		i := idx[j]
		t := &ds.Tasks[i]
		items[j] = Item{Task: t, Prediction: p, Index: i}
		if p.DBID == "" || p.DBID == t.DBID {
			continue
		}
		if bad++; first == nil {
			first = fmt.Errorf("align: %s: db_id %q, but task %s (index %d) is on %q", p.Pos, p.DBID, t.ID, i, t.DBID)
		}
	}
	if bad > 1 {
		return nil, fmt.Errorf("%w (and %d more mismatched db_ids)", first, bad-1)
	}
	if first != nil {
		return nil, first
	}
	return items, nil
}
