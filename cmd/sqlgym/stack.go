package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/examples/rewards"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/tools"
)

// stackFlags are the flags of every command that runs episodes: what to
// serve, where to record it, and the bounds of a step.
type stackFlags struct {
	datasets           listFlag
	dataDir            string
	trajectories       string
	rewardFile         string
	maxTurns           int
	maxCalls           int  // calls of one turn that run
	promptDescriptions bool // column descriptions in the prompt by default
	promptStyle        promptStyleFlags
	queryTimeout       time.Duration
	submitTimeout      time.Duration
	goldTimeout        time.Duration
	rowLimit           int
	observationBytes   int
	dbCheck            dbCheckFlags
	dbConns            int
	dbRunning          int
	dbStmtCacheBytes   int
	dbOpenMax          int
	durability         durabilityFlags
	replica            replicaFlags // serve's alone (newServeFlags registers them)
	schemaCacheBytes   int
	engine             engineFlags
	tools              toolFlags
	judging            judgeFlags
}

// defaultDataDir is --data-dir's default, the same for every command.
const defaultDataDir = "./sqlgym-data"

func (s *stackFlags) register(fs *flag.FlagSet) {
	fs.Var(&s.datasets, "dataset", "dataset to serve, `[NAME=]FORMAT:PATH` with FORMAT spider, bird or jsonl (repeatable; default: the embedded demo)")
	fs.StringVar(&s.dataDir, "data-dir", defaultDataDir, "where trajectories (and the demo's databases) are kept")
	fs.StringVar(&s.trajectories, "trajectories", "", "where episodes are recorded: empty for the log under --data-dir, or a postgres:// URL")
	fs.StringVar(&s.rewardFile, "reward", "", "reward spec: a preset `name` (default, binary, retoolsql, arctic-text2sql-r1) or a spec file (JSON, merged over the defaults)")
	fs.IntVar(&s.maxTurns, "max-turns", episodes.DefaultMaxTurns, "default turn budget of an episode")
	s.registerCalls(fs, "")
	fs.BoolVar(&s.promptDescriptions, "prompt-descriptions", false, "put the column descriptions a dataset ships in the prompt (an episode.reset may ask with descriptions: true/false)")
	s.promptStyle.register(fs)
	fs.DurationVar(&s.queryTimeout, "query-timeout", tools.DefaultQueryTimeout, "time limit of one execute_sql or inspect_schema call")
	fs.DurationVar(&s.submitTimeout, "submit-timeout", judge.DefaultTimeout, "time limit of a submitted query when it is scored")
	fs.DurationVar(&s.goldTimeout, "gold-timeout", judge.DefaultTimeout, "time limit of a gold query, timed apart from the submission")
	fs.IntVar(&s.rowLimit, "row-limit", tools.DefaultRowLimit, "rows of a result shown to the model")
	bytesVar(fs, &s.observationBytes, "observation-bytes", tools.DefaultObservationBytes, "largest observation text shown to the model")
	bytesVar(fs, &s.schemaCacheBytes, "schema-cache-bytes", tools.DefaultSchemaCacheBytes,
		"bytes of inspect_schema text kept per database, read once and shown again (0: keep none, read the catalog on every call)")
	s.judging.register(fs, judge.TiesAny)
	s.dbCheck.register(fs)
	s.registerDBPool(fs)
	s.durability.register(fs)
	s.tools.register(fs)
}

// registerDBPool registers the bounds of the databases' connections.
func (s *stackFlags) registerDBPool(fs *flag.FlagSet) {
	fs.IntVar(&s.dbConns, "db-conns", sqlite.DefaultMaxConns,
		"connections per database: statements running on one database at once; waiting for one counts against the statement's timeout")
	fs.IntVar(&s.dbRunning, "db-running", sqlite.DefaultMaxRunning,
		"statements running at once across all databases; waiting for a slot counts against the statement's timeout")
	fs.IntVar(&s.dbOpenMax, "db-open-max", sqlite.DefaultMaxOpenDBs,
		"SQLite databases whose connections stay open, the most recently used; the others keep none and open them on their next call")
	bytesVar(fs, &s.dbStmtCacheBytes, "db-stmt-cache-bytes", sqlite.DefaultStmtCacheBytes,
		"text of the statements each SQLite connection keeps prepared, added up, so that the same text running again on it skips preparing (0: keep none; statements over 4 KiB are never kept)")
	s.engine.register(fs)
}

// registerCalls registers --max-calls-per-turn; note ends its help.
func (s *stackFlags) registerCalls(fs *flag.FlagSet, note string) {
	fs.IntVar(&s.maxCalls, "max-calls-per-turn", episodes.DefaultMaxCallsPerTurn,
		fmt.Sprintf("calls of one step that run, in order (1 to %d); the calls past it are answered as not run%s", episodes.MaxMessageCalls, note))
}

func (s *stackFlags) check() error {
	switch {
	case s.maxTurns < 1:
		return usageError{"--max-turns must be at least 1"}
	case s.maxCalls < 1 || s.maxCalls > episodes.MaxMessageCalls:
		return usageError{fmt.Sprintf("--max-calls-per-turn must be from 1 to %d, got %d", episodes.MaxMessageCalls, s.maxCalls)}
	case s.queryTimeout <= 0 || s.submitTimeout <= 0 || s.goldTimeout <= 0:
		return usageError{"--query-timeout, --submit-timeout and --gold-timeout must be positive"}
	case s.rowLimit < 1 || s.observationBytes < 256:
		return usageError{"--row-limit must be >= 1 and --observation-bytes >= 256"}
	case s.dbConns < 1 || s.dbRunning < 1 || s.dbOpenMax < 1:
		return usageError{"--db-conns, --db-running and --db-open-max must be at least 1"}
	case s.dbStmtCacheBytes < 0:
		return usageError{"--db-stmt-cache-bytes must not be negative (0 keeps none)"}
	case s.schemaCacheBytes < 0:
		return usageError{"--schema-cache-bytes must not be negative (0 keeps none)"}
	}
	if err := s.judging.parse(); err != nil {
		return err
	}
	if err := s.promptStyle.parse(); err != nil {
		return err
	}
	return s.engine.parse()
}

// serveStack is what runs episodes, built from stackFlags.
type serveStack struct {
	*stack.Stack
	judging string // what submissions are judged on, in words
}

// build checks the flags, loads the datasets and builds the stack through
// internal/app/stack, each flag-dependent step given as a step of its Plan.
func (s *stackFlags) build(ctx context.Context, log *zap.Logger) (*serveStack, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if err := s.replica.check(s.trajectories); err != nil {
		return nil, err
	}
	if err := s.durability.check(); err != nil {
		return nil, err
	}
	if err := s.tools.parse(); err != nil {
		return nil, err
	}
	p := stack.Plan{RewardPreset: rewards.Preset}
	if s.rewardFile != "" {
		spec, err := rewards.Load(s.rewardFile)
		if err != nil {
			return nil, fmt.Errorf("--reward: %w", err)
		}
		p.Reward = &spec
	}
	s.dbCheck.run = !s.dbCheck.skip
	dss, err := s.loadDatasets(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.tools.checkDatasets(dss); err != nil {
		return nil, err
	}
	if err := s.promptStyle.checkDatasets(dss); err != nil {
		return nil, err
	}
	for _, ds := range dss {
		log.Info("dataset loaded", zap.String("name", ds.Name), zap.Int("tasks", len(ds.Tasks)), zap.Int("databases", len(ds.DBs)))
	}
	st := &serveStack{}
	s.plan(&p, dss, st, log)
	if st.Stack, err = stack.Build(ctx, p); err != nil {
		return nil, err
	}
	s.engine.built, s.engine.mysql.built = st.Postgres, st.MySQL
	s.engine.warnCapacity(ctx, log)
	if st.Values != nil {
		s.tools.warm(st.Values, st.Datasets, st.Catalog)
	}
	return st, nil
}

// plan fills p's datasets, engines and steps from the flags; the suites'
// step says in st what submissions are judged on.
func (s *stackFlags) plan(p *stack.Plan, dss []*env.Dataset, st *serveStack, log *zap.Logger) {
	p.Datasets, p.Engines = dss, s.engineConfig(nil)
	if s.tools.searches() {
		p.Values = func() (*valueindex.Store, error) { return s.tools.index.open(s.dataDir, s.datasetDirs(dss), log) }
	}
	p.Check = func(ctx context.Context, cat *env.Catalog, dss []*env.Dataset) error {
		return s.dbCheck.verify(ctx, cat, dss, log)
	}
	p.Suites = func(ctx context.Context, cat *env.Catalog, dss []*env.Dataset) (judge.Suites, error) {
		suites, said, err := s.judging.suites(ctx, s.dataDir, dss, cat, s.datasets.values)
		st.judging = said + "; ties: " + s.judging.ties
		log.Info("judging", zap.String("on", said), zap.String("ties", s.judging.ties))
		return suites, err
	}
	p.Recorder = func(ctx context.Context) (trajlog.Writer, error) {
		return openTrajectoryWriter(ctx, s.trajectories, s.dataDir, s.durability, s.replica, log)
	}
}

// engines are what run a step's SQL within the flags' bounds: the
// databases' catalog, the tools' runner and the submissions' judge.
func (s *stackFlags) engines(values env.ValueSearcher) (*env.Catalog, *tools.Runner, *judge.Judge) {
	e := s.engine.build(s.engineConfig(values))
	return e.Catalog, e.Runner, e.Judge
}

// engineConfig is the engines' config from the flags, the runner reading
// values for search_values (nil for none).
func (s *stackFlags) engineConfig(values env.ValueSearcher) stack.EngineConfig {
	stmtCache := s.dbStmtCacheBytes
	if stmtCache == 0 {
		stmtCache = -1 // the engine's "keep none"; its zero is the default
	}
	cacheBytes := s.schemaCacheBytes
	if cacheBytes == 0 {
		cacheBytes = -1 // the runner's "keep none"; its zero is the default
	}
	c := s.engine.config(sqlite.Config{MaxConns: s.dbConns, MaxRunning: s.dbRunning, DefaultTimeout: s.queryTimeout,
		StmtCacheBytes: stmtCache, MaxOpenDBs: s.dbOpenMax}, s.queryTimeout)
	c.Runner = tools.Config{RowLimit: s.rowLimit, ObservationBytes: s.observationBytes, QueryTimeout: s.queryTimeout,
		SchemaCacheBytes: cacheBytes, Values: values}
	c.Judge = s.judgeConfig()
	return c
}

// judgeConfig is the judge's config from the flags, without its suites.
func (s *stackFlags) judgeConfig() judge.Config {
	return judge.Config{PredTimeout: s.submitTimeout, GoldTimeout: s.goldTimeout, Ties: judge.Ties(s.judging.ties)}
}

// suiteJudge is a judge on the test suites --judge asks for, nil when
// submissions are judged on the task's database alone, and what they are
// judged on, in words.
func (s *stackFlags) suiteJudge(ctx context.Context, dss []*env.Dataset, catalog *env.Catalog) (*judge.Judge, string, error) {
	suites, said, err := s.judging.suites(ctx, s.dataDir, dss, catalog, s.datasets.values)
	if err != nil || suites == nil {
		return nil, said, err
	}
	cfg := s.judgeConfig()
	cfg.Suites = suites
	return judge.New(cfg), said, nil
}

// loadDatasets loads every --dataset, or the embedded demo when none is given.
func (s *stackFlags) loadDatasets(ctx context.Context) ([]*env.Dataset, error) {
	if len(s.datasets.values) == 0 {
		if err := s.engine.checkUsed(nil); err != nil {
			return nil, usageError{err.Error() + " (without --dataset only the embedded demo runs, on SQLite)"}
		}
		ds, err := stack.Demo(ctx, filepath.Join(s.dataDir, "demo"))
		if err != nil {
			return nil, fmt.Errorf("demo dataset: %w", err)
		}
		return []*env.Dataset{ds}, nil
	}
	var out []*env.Dataset
	for _, v := range s.datasets.values {
		src, err := datasets.ParseSource(v)
		if err != nil {
			return nil, usageError{fmt.Sprintf("--dataset %q: %v", v, err)}
		}
		ds, err := s.engine.load(src, s.dbCheck.load)
		if err != nil {
			return nil, fmt.Errorf("--dataset %q: %w", v, err)
		}
		out = append(out, ds)
	}
	return out, s.engine.checkUsed(out)
}

func (st *serveStack) close(log *zap.Logger) {
	if err := st.Stack.Close(); err != nil {
		log.Error("close", zap.Error(err))
	}
}

func datasetNames(dss []*env.Dataset) string {
	var names []string
	for _, ds := range dss {
		names = append(names, fmt.Sprintf("%s (%d tasks)", ds.Name, len(ds.Tasks)))
	}
	return strings.Join(names, ", ")
}
