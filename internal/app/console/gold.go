package console

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// Golds runs an episode's gold, and its last submission, again.
type Golds interface {
	// Compare runs the gold of t's task and predSQL ("" for none) on the
	// task's database and returns both results, the rows that differ
	// marked.
	Compare(ctx context.Context, t *schemas.Trajectory, predSQL string) (*Comparison, error)
}

// Comparison is an episode's gold beside its submission.
type Comparison struct {
	GoldSQL   string
	Gold      *Table
	GoldError string
	Pred      *Table // nil when nothing was submitted, or it failed
	PredError string
}

// Table is a result set as text, each row marked when the other side has
// no row equal to it.
type Table struct {
	Columns   []string
	Rows      []Row
	Truncated bool
}

// Row is one row of a Table.
type Row struct {
	Cells   []string
	Differs bool
}

// DatasetGolds finds tasks in the datasets the server loaded and runs
// their gold and a submission as the judge runs them (judge.Sides).
type DatasetGolds struct {
	Catalog  *env.Catalog
	Datasets []*env.Dataset
	Judge    *judge.Judge // the server's judge; nil runs under the judge's defaults
}

// Compare runs the task's gold and predSQL under the episode's spec.
func (g *DatasetGolds) Compare(ctx context.Context, t *schemas.Trajectory, predSQL string) (*Comparison, error) {
	ds, task, ok := env.FindTask(g.Datasets, t.Task.Dataset, t.Task.TaskID)
	if !ok {
		return nil, fmt.Errorf("the task %q of dataset %q is not among the datasets this console loaded", t.Task.TaskID, t.Task.Dataset)
	}
	db, err := g.Catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		return nil, fmt.Errorf("opening database %s: %w", task.DBID, err)
	}
	j := g.Judge
	if j == nil {
		j = judge.New(judge.Config{})
	}
	s, err := j.Sides(ctx, db, task, predSQL, t.RewardSpec)
	if err != nil {
		return nil, err
	}
	c := &Comparison{GoldSQL: task.GoldSQL}
	c.Gold, c.GoldError = sideTable(s.Gold)
	c.Pred, c.PredError = sideTable(s.Pred)
	if c.Gold != nil && c.Pred != nil {
		markDiffering(c.Gold, c.Pred)
	}
	return c, nil
}

// sideTable is one side of the judge's comparison as text, or the error
// it got; nil and "" when it did not run.
func sideTable(s judge.Side) (*Table, string) {
	var qe *env.QueryError
	switch {
	case errors.As(s.Err, &qe):
		return nil, qe.Error()
	case s.Err != nil:
		return nil, s.Err.Error()
	case s.Result == nil:
		return nil, ""
	}
	return tableOf(s.Result), ""
}

func tableOf(rs *env.ResultSet) *Table {
	t := &Table{Columns: rs.Columns, Truncated: rs.Truncated}
	for _, r := range rs.Rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = cellText(v)
		}
		t.Rows = append(t.Rows, Row{Cells: cells})
	}
	return t
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	default:
		return fmt.Sprint(x)
	}
}

// markDiffering marks each row of a that b lacks and each of b that a
// lacks, counting repeats (a bag comparison of the rows as text).
func markDiffering(a, b *Table) {
	mark := func(x, y *Table) {
		left := map[string]int{}
		for _, r := range y.Rows {
			left[strings.Join(r.Cells, "\x00")]++
		}
		for i, r := range x.Rows {
			k := strings.Join(r.Cells, "\x00")
			if left[k] > 0 {
				left[k]--
				continue
			}
			x.Rows[i].Differs = true
		}
	}
	mark(a, b)
	mark(b, a)
}
