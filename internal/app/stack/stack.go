// Package stack builds what sqlgym serve runs: the datasets (the embedded
// demo when none is given), the engines' catalog, the tools' runner, the
// judge, the reward spec and the trajectory recorder, and from them the
// episode Manager's config, in one order (Build). cmd/sqlgym and the test
// kits build through it, so the wiring is written once.
package stack

import (
	"context"
	"errors"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// EngineConfig bounds the SQL a step runs. Its zero value takes each
// library's defaults and serves SQLite only.
type EngineConfig struct {
	SQLite   sqlite.Config
	Postgres *postgres.Config // nil: no PostgreSQL engine
	MySQL    *mysql.Config    // nil: no MySQL engine
	Runner   tools.Config
	Judge    judge.Config
}

// Engines are what run a step's SQL: the databases' catalog, the tools'
// runner and the submissions' judge.
type Engines struct {
	Catalog  *env.Catalog
	Runner   *tools.Runner
	Judge    *judge.Judge
	Postgres *postgres.Engine // the catalog's PostgreSQL engine; nil when it has none
	MySQL    *mysql.Engine    // the catalog's MySQL engine; nil when it has none
}

// NewEngines builds the catalog (SQLite, and PostgreSQL and MySQL where asked),
// the runner and the judge. Closing the catalog closes the engines.
func NewEngines(c EngineConfig) Engines {
	engines := []env.Engine{sqlite.New(c.SQLite)}
	var pg *postgres.Engine
	if c.Postgres != nil {
		pg = postgres.New(*c.Postgres)
		engines = append(engines, pg)
	}
	var my *mysql.Engine
	if c.MySQL != nil {
		my = mysql.New(*c.MySQL)
		engines = append(engines, my)
	}
	return Engines{Catalog: env.NewCatalog(engines...), Runner: tools.NewRunner(c.Runner),
		Judge: judge.New(c.Judge), Postgres: pg, MySQL: my}
}

// Demo materializes the embedded demo dataset under dir, on SQLite.
func Demo(ctx context.Context, dir string) (*env.Dataset, error) {
	return demo.Load(ctx, dir, sqlite.Build)
}

// Stack is what a Manager runs episodes on.
type Stack struct {
	Engines
	Datasets []*env.Dataset
	Reward   schemas.RewardSpec
	// RewardPreset resolves a preset's name for a reset's reward
	// (episodes.Config.RewardPreset); nil refuses every name.
	RewardPreset func(name string) (schemas.RewardSpec, error)
	Recorder     trajlog.Writer    // where episodes are recorded; nil until the caller opens one
	Values       *valueindex.Store // the value index search_values reads; nil when none
}

// New builds a stack over datasets with the engines c bounds, paying by
// the default reward spec and recording to rec: Build with no steps that
// can fail.
func New(c EngineConfig, rec trajlog.Writer, datasets ...*env.Dataset) *Stack {
	st, err := Build(context.Background(), Plan{Datasets: datasets, Engines: c})
	if err != nil {
		panic(err) // no step of this plan can fail
	}
	st.Recorder = rec
	return st
}

// Config is the Manager's config over the stack; the caller adds its
// bounds (turns, episodes, bytes) before episodes.New.
func (s *Stack) Config() episodes.Config {
	return episodes.Config{Datasets: s.Datasets, Catalog: s.Catalog, Runner: s.Runner, Judge: s.Judge,
		Reward: s.Reward, RewardPreset: s.RewardPreset, Recorder: s.Recorder}
}

// Close stops the value index's builds, when there is one, closes the
// recorder, when there is one, then the catalog and its engines (the
// databases the index's builds read).
func (s *Stack) Close() error {
	var err error
	if s.Values != nil {
		err = s.Values.Close()
	}
	if s.Recorder != nil {
		err = errors.Join(err, s.Recorder.Close())
	}
	if s.Catalog != nil {
		err = errors.Join(err, s.Catalog.Close())
	}
	return err
}
