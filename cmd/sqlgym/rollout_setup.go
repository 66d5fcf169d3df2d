package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/tools"
)

// rolloutSetup is what a rollout runs on: the datasets and their engines
// (for the tasks, the hints and the votes), the episodes' Env, and the
// store the run's episodes are read back from.
type rolloutSetup struct {
	datasets []*env.Dataset
	catalog  *env.Catalog
	runner   *tools.Runner
	judge    *judge.Judge // the stack's: the report judges golds with the same timeouts and cache
	env      rollout.Env
	reader   trajlog.Reader
	closers  []io.Closer
	tasks    []string
}

// setup builds the episodes' Env: a Manager in this process recording to
// --data-dir (or --trajectories), or the server at --url, whose store
// those flags then name.
func (f *rolloutFlags) setup(ctx context.Context, log *zap.Logger) (*rolloutSetup, error) {
	rs := &rolloutSetup{}
	var err error
	if f.url == "" {
		err = rs.inProcess(ctx, &f.stack, log)
	} else {
		err = rs.remote(ctx, f, log)
	}
	if err == nil {
		err = rs.pickTasks(f)
	}
	if err != nil {
		rs.close(log)
		return nil, err
	}
	return rs, nil
}

// inProcess runs the episodes on a Manager, as serve would.
func (rs *rolloutSetup) inProcess(ctx context.Context, s *stackFlags, log *zap.Logger) error {
	st, err := s.build(ctx, log)
	if err != nil {
		return err
	}
	rs.datasets, rs.catalog, rs.runner, rs.judge = st.Datasets, st.Catalog, st.Runner, st.Judge
	rs.closers = append(rs.closers, st.Recorder, st.Catalog)
	rd, ok := st.Recorder.(trajlog.Reader)
	if !ok {
		return errors.New("the trajectory store cannot be read back")
	}
	rs.reader = rd
	if l, ok := rd.(*filelog.Log); ok {
		rs.reader = &filelog.DamageKeeper{Log: l} // keeps the damage its reads find
	}
	cfg := st.Config()
	cfg.Logger, cfg.Version, cfg.TrajectoryStore = log, version, s.storeDescription()
	cfg.MaxTurns, cfg.MaxCallsPerTurn = s.maxTurns, s.maxCalls
	cfg.PromptStyle, cfg.DatasetPromptStyles = s.promptStyle.style, s.promptStyle.byDataset
	mgr, err := episodes.New(cfg)
	if err != nil {
		return err
	}
	rs.env = rollout.ManagerEnv{M: mgr}
	return nil
}

// remote runs the episodes on the server at --url; the datasets are
// loaded here too, for their tasks, hints and votes.
func (rs *rolloutSetup) remote(ctx context.Context, f *rolloutFlags, log *zap.Logger) error {
	s := &f.stack
	if err := s.check(); err != nil {
		return err
	}
	var err error
	if rs.datasets, err = s.loadDatasets(ctx); err != nil {
		return err
	}
	rs.catalog, rs.runner, rs.judge = s.engines(nil) // no value index: rollout offers the default tools
	rs.closers = append(rs.closers, rs.catalog)
	rd, closer, err := openTrajectoryReader(ctx, s.trajectories, s.dataDir)
	if err != nil {
		return err
	}
	rs.reader = rd
	rs.closers = append(rs.closers, closer)
	c, err := client.DialResuming(ctx, f.url, f.token, f.reconnect)
	if err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	rs.closers = append(rs.closers, c)
	rs.env = rollout.ClientEnv{C: c}
	return nil
}

// pickTasks lists the tasks to play.
func (rs *rolloutSetup) pickTasks(f *rolloutFlags) error {
	var all []string
	for _, ds := range rs.datasets {
		for _, t := range ds.Tasks {
			all = append(all, t.ID)
		}
	}
	ids, err := f.selectTasks(func(id string) bool { _, _, ok := rs.task(id); return ok }, all)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return usageError{"no task to play"}
	}
	rs.tasks = ids
	return nil
}

// task finds a task of the loaded datasets.
func (rs *rolloutSetup) task(id string) (*env.Dataset, *env.Task, bool) {
	for _, ds := range rs.datasets {
		if t, ok := ds.Task(id); ok {
			return ds, t, true
		}
	}
	return nil, nil, false
}

// hints returns the teacher's hints of a task, for --teacher-hints.
func (rs *rolloutSetup) hints(kinds []string) func(context.Context, string) (rollout.Hints, error) {
	if len(kinds) == 0 {
		return nil
	}
	h := &rollout.Hinter{Kinds: kinds, Catalog: rs.catalog, Runner: rs.runner}
	return func(ctx context.Context, id string) (rollout.Hints, error) {
		ds, t, _ := rs.task(id)
		return h.Hints(ctx, ds, t)
	}
}

func (rs *rolloutSetup) close(log *zap.Logger) {
	var errs []error
	for i := len(rs.closers) - 1; i >= 0; i-- {
		errs = append(errs, rs.closers[i].Close())
	}
	if err := errors.Join(errs...); err != nil {
		log.Error("close", zap.Error(err))
	}
}
