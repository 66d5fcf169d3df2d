package console

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/env"
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
// their SQL through the catalog's databases.
type DatasetGolds struct {
	Catalog  *env.Catalog
	Datasets []*env.Dataset
	Limits   env.Limits // a zero Timeout or MaxRows takes 30s and 200 rows
}

// Compare runs the task's gold and predSQL.
func (g *DatasetGolds) Compare(ctx context.Context, t *schemas.Trajectory, predSQL string) (*Comparison, error) {
	ds, task := g.find(t.Task)
	if task == nil {
		return nil, fmt.Errorf("the task %q of dataset %q is not among the datasets this console loaded", t.Task.TaskID, t.Task.Dataset)
	}
	db, err := g.Catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		return nil, fmt.Errorf("opening database %s: %w", task.DBID, err)
	}
	lim := g.Limits
	if lim.Timeout <= 0 {
		lim.Timeout = 30 * time.Second
	}
	if lim.MaxRows <= 0 {
		lim.MaxRows = 200
	}
	c := &Comparison{GoldSQL: task.GoldSQL}
	if task.GoldSQL != "" {
		c.Gold, c.GoldError = run(ctx, db, task.GoldSQL, lim)
	} else {
		c.Gold = tableOf(&env.ResultSet{Rows: task.GoldRows})
	}
	if strings.TrimSpace(predSQL) != "" {
		c.Pred, c.PredError = run(ctx, db, predSQL, lim)
	}
	if c.Gold != nil && c.Pred != nil {
		markDiffering(c.Gold, c.Pred)
	}
	return c, nil
}

func (g *DatasetGolds) find(v schemas.TaskView) (*env.Dataset, *env.Task) {
	for _, ds := range g.Datasets {
		if ds.Name != v.Dataset {
			continue
		}
		if t, ok := ds.Task(v.TaskID); ok {
			return ds, t
		}
	}
	return nil, nil
}

// run runs sql and returns its result as text, or the error it got.
func run(ctx context.Context, db env.DB, sql string, lim env.Limits) (*Table, string) {
	rs, err := db.Query(ctx, sql, lim)
	if err != nil {
		var qe *env.QueryError
		if errors.As(err, &qe) {
			return nil, qe.Error()
		}
		return nil, err.Error()
	}
	return tableOf(rs), ""
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
