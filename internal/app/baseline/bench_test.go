package baseline

import (
	"context"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// TestTasks: every task of the dataset, in order, with its gold.
func TestTasks(t *testing.T) {
	ds, _, _ := setup(t)
	got := Tasks(ds)
	if len(got) != len(ds.Tasks) {
		t.Fatalf("%d tasks, want %d", len(got), len(ds.Tasks))
	}
	for i, task := range got {
		if task.ID != ds.Tasks[i].ID || task.GoldSQL != ds.Tasks[i].GoldSQL || task.GoldSQL == "" {
			t.Errorf("task %d = %+v, want %s with its gold", i, task, ds.Tasks[i].ID)
		}
	}
}

// TestMeasure: the bench's baseline is a Run's result: its statements,
// errors, workers, elapsed time and rate.
func TestMeasure(t *testing.T) {
	ds, cat, eng := setup(t)
	const statements = 40
	lim := env.Limits{Timeout: time.Second, MaxRows: 100}
	b, err := Measure(Config{Dataset: ds, Catalog: cat, Repeats: 3, Workers: 2, Statements: statements,
		Exec: lim, Submit: lim})(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b.Statements != statements || b.Errors != 0 || b.Workers != 2 || eng.ran() != statements {
		t.Errorf("baseline %+v after %d statements ran; want %d, none failed, on 2 workers", b, eng.ran(), statements)
	}
	if b.Elapsed <= 0 || b.PerS != float64(b.Statements)/b.Elapsed {
		t.Errorf("elapsed %vs, %v/s: want a rate of the statements over the elapsed time", b.Elapsed, b.PerS)
	}
}

// TestMeasureNoGold: a Run's error is the baseline's, with no result.
func TestMeasureNoGold(t *testing.T) {
	ds, cat, _ := setup(t)
	for i := range ds.Tasks {
		ds.Tasks[i].GoldSQL = ""
	}
	if b, err := Measure(Config{Dataset: ds, Catalog: cat, Statements: 5})(context.Background()); err == nil || b != nil {
		t.Errorf("Measure on tasks without golds = %+v, %v; want an error and no baseline", b, err)
	}
}
