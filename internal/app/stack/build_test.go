package stack_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestBuildRunsItsStepsInOrder builds a stack whose steps note their
// turn: the databases' check and the suites see the built catalog, the
// recorder opens last, and the reward given is the stack's.
func TestBuildRunsItsStepsInOrder(t *testing.T) {
	ctx := context.Background()
	ds, err := stack.Demo(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	spec := schemas.DefaultRewardSpec()
	spec.Match = schemas.MatchSpider
	dir := t.TempDir()
	p := stack.Plan{Datasets: []*env.Dataset{ds}, Reward: &spec,
		Check: func(ctx context.Context, cat *env.Catalog, dss []*env.Dataset) error {
			order = append(order, "check")
			_, err := cat.DB(ctx, dss[0], dss[0].Tasks[0].DBID)
			return err
		},
		Suites: func(context.Context, *env.Catalog, []*env.Dataset) (judge.Suites, error) {
			order = append(order, "suites")
			return nil, nil
		},
		Recorder: func(context.Context) (trajlog.Writer, error) {
			order = append(order, "recorder")
			return filelog.Open(dir, filelog.Options{NoSync: true})
		},
	}
	st, err := stack.Build(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if want := []string{"check", "suites", "recorder"}; !slices.Equal(order, want) {
		t.Errorf("steps ran in the order %v, want %v", order, want)
	}
	if st.Reward.Match != schemas.MatchSpider || st.Recorder == nil || st.Values != nil {
		t.Errorf("stack: reward match %q, recorder %v, values %v; want the plan's spider spec, a recorder, no index", st.Reward.Match, st.Recorder, st.Values)
	}
}

// TestBuildClosesWhatItBuiltOnFailure fails the databases' check: Build
// returns its error, never opens the recorder, and closes the catalog it
// built (the check's catalog refuses a database after).
func TestBuildClosesWhatItBuiltOnFailure(t *testing.T) {
	ctx := context.Background()
	ds, err := stack.Demo(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	broken := errors.New("database x is missing")
	var seen *env.Catalog
	recorded := false
	_, err = stack.Build(ctx, stack.Plan{Datasets: []*env.Dataset{ds},
		Check: func(_ context.Context, cat *env.Catalog, _ []*env.Dataset) error { seen = cat; return broken },
		Recorder: func(context.Context) (trajlog.Writer, error) {
			recorded = true
			return nil, nil
		},
	})
	if !errors.Is(err, broken) || recorded {
		t.Fatalf("Build = %v, recorder opened %v; want the check's error and no recorder", err, recorded)
	}
	if _, err := seen.DB(ctx, ds, ds.Tasks[0].DBID); !errors.Is(err, env.ErrCatalogClosed) {
		t.Errorf("the catalog after a failed Build: %v, want %v", err, env.ErrCatalogClosed)
	}
}
