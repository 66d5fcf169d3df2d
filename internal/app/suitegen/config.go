package suitegen

import (
	"context"
	"runtime"
	"time"

	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// Defaults for the zero fields of Config.
const (
	DefaultCandidates    = 100
	DefaultMaxNeighbours = 100
	DefaultTimeout       = 2 * time.Second
	DefaultRowCap        = 20_000
)

// Config configures a build. Every zero field takes its default; a build
// with the same Config (Workers and Progress aside) makes the same suites.
type Config struct {
	// Seed is where every draw starts: the candidates', the held-out
	// databases' and the neighbours' literal and column draws.
	Seed uint64
	// Candidates is T, the candidate databases drawn per source database;
	// 0 means DefaultCandidates.
	Candidates int
	// HeldOut is H, the databases drawn from another seed stream to
	// measure the suites by; 0 draws none.
	HeldOut int
	// MaxNeighbours bounds the neighbours kept per gold; 0 means
	// DefaultMaxNeighbours.
	MaxNeighbours int
	// MaxRows and SampleValues are handed to the generator (its rows per
	// table, its original values per column); 0 takes its defaults.
	MaxRows, SampleValues int
	// Timeout bounds every query; one that runs over tells nothing apart.
	// 0 means DefaultTimeout.
	Timeout time.Duration
	// RowCap bounds the rows a query may return; a result cut there tells
	// nothing apart. 0 means DefaultRowCap.
	RowCap int
	// Workers bounds the source databases built at once; 0 means
	// GOMAXPROCS. The suites do not depend on it.
	Workers int
	// Planner makes the generator of a source database's candidates; nil
	// means DBGen.
	Planner Planner
	// Progress, when set, is called once per source database as its build
	// ends (reused or built), one call at a time.
	Progress func(dataset string, db DBReport)
}

// Generator draws the candidate databases of one source database: its
// schema with random rows, the same rows for the same seed.
type Generator interface {
	// Generate writes a new SQLite database drawn from seed at dst.
	Generate(ctx context.Context, seed uint64, dst string) error
	// Empty writes the source database's schema, without rows, at dst.
	Empty(ctx context.Context, dst string) error
}

// Planner reads the SQLite database at src and the golds asked of it and
// returns the Generator of its candidates.
type Planner func(ctx context.Context, src string, golds []string, cfg Config) (Generator, error)

// withDefaults returns cfg with every zero field set to its default.
func (cfg Config) withDefaults() Config {
	if cfg.Candidates <= 0 {
		cfg.Candidates = DefaultCandidates
	}
	if cfg.MaxNeighbours <= 0 {
		cfg.MaxNeighbours = DefaultMaxNeighbours
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.RowCap <= 0 {
		cfg.RowCap = DefaultRowCap
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Planner == nil {
		cfg.Planner = DBGen
	}
	cfg.HeldOut = max(cfg.HeldOut, 0)
	return cfg
}

// params are the parameters of cfg that shape the suites, as the manifest
// records them.
func (cfg Config) params() testsuite.Params {
	return testsuite.Params{
		Seed: cfg.Seed, Candidates: cfg.Candidates, HeldOut: cfg.HeldOut, MaxNeighbours: cfg.MaxNeighbours,
		MaxRows: cfg.MaxRows, SampleValues: cfg.SampleValues, TimeoutMS: cfg.Timeout.Milliseconds(), RowCap: cfg.RowCap,
	}
}
