package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/tools"
)

// registerOffline registers the flags replay and rescore share with
// serve, with serve's names, defaults and meanings: the datasets the
// episodes ran on, where they were recorded, and the bounds of a step
// (which should be those the server ran with).
func registerOffline(fs *flag.FlagSet, s *stackFlags) {
	fs.Var(&s.datasets, "dataset", "dataset the episodes ran on, `[NAME=]FORMAT:PATH` as for serve (repeatable; default: the embedded demo)")
	fs.StringVar(&s.dataDir, "data-dir", defaultDataDir, "where serve kept the trajectory log (and the demo's databases)")
	fs.StringVar(&s.trajectories, "trajectories", "", "where episodes were recorded: empty for the log under --data-dir, a postgres:// URL, or a file of records (export --format raw)")
	fs.DurationVar(&s.queryTimeout, "query-timeout", tools.DefaultQueryTimeout, "time limit of one execute_sql or inspect_schema call (as serve ran)")
	fs.DurationVar(&s.submitTimeout, "submit-timeout", judge.DefaultTimeout, "time limit of a submitted query when it is scored (as serve ran)")
	fs.DurationVar(&s.goldTimeout, "gold-timeout", judge.DefaultTimeout, "time limit of a gold query (as serve ran)")
	fs.IntVar(&s.rowLimit, "row-limit", tools.DefaultRowLimit, "rows of a result shown to the model (as serve ran)")
	bytesVar(fs, &s.observationBytes, "observation-bytes", tools.DefaultObservationBytes, "largest observation text shown to the model (as serve ran)")
	s.registerDBPool(fs)
	s.tools.index.register(fs)
	s.registerCalls(fs, " (as serve ran)")
	s.judging.register(fs, judge.TiesAny)
	s.maxTurns = episodes.DefaultMaxTurns // episodes carry their own turn budget
}

// offlineFlags are the flags replay and rescore share: serve's stack
// (registerOffline), which episodes to read and the damage report.
type offlineFlags struct {
	stack  stackFlags
	filter filterFlags
	damage damageFlags
}

// register registers the shared flags.
func (o *offlineFlags) register(fs *flag.FlagSet) {
	registerOffline(fs, &o.stack)
	o.filter.register(fs)
	o.damage.register(fs)
}

// open builds the offline stack, its reader narrowed to the selected
// episodes, and the filter they are read with.
func (o *offlineFlags) open(ctx context.Context) (*offline, trajlog.Filter, error) {
	flt, err := o.filter.filter()
	if err != nil {
		return nil, flt, err
	}
	off, err := buildOffline(ctx, &o.stack)
	if err != nil {
		return nil, flt, err
	}
	off.reader = o.filter.reader(off.reader)
	return off, flt, nil
}

// offline is what replay and rescore run on: the datasets, engines and
// judge a server would have, and the recorded episodes.
type offline struct {
	datasets []*env.Dataset
	catalog  *env.Catalog
	runner   *tools.Runner
	judge    *judge.Judge
	reader   trajlog.Reader
	closer   io.Closer
	values   *valueindex.Store // answers the search_values steps replayed
}

func buildOffline(ctx context.Context, s *stackFlags) (*offline, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	dss, err := s.loadDatasets(ctx)
	if err != nil {
		return nil, err
	}
	rd, closer, err := openTrajectoryReader(ctx, s.trajectories, s.dataDir)
	if err != nil {
		return nil, err
	}
	if err := s.tools.index.check(); err != nil {
		closer.Close()
		return nil, err
	}
	values, err := s.tools.index.open(s.dataDir, s.datasetDirs(dss), zap.NewNop())
	if err != nil {
		closer.Close()
		return nil, err
	}
	off := &offline{datasets: dss, reader: rd, closer: closer, values: values}
	off.catalog, off.runner, off.judge = s.engines(values)
	j, _, err := s.suiteJudge(ctx, dss, off.catalog)
	if err != nil {
		off.close()
		return nil, err
	}
	if j != nil {
		off.judge = j
	}
	return off, nil
}

// close releases the store, the value index and the catalog.
func (o *offline) close() error {
	return errors.Join(o.closer.Close(), o.values.Close(), o.catalog.Close())
}
