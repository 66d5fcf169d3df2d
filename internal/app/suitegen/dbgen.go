package suitegen

import (
	"context"

	"github.com/sqlgym/sqlgym/internal/app/suitegen/dbgen"
)

// DBGen is the Planner of internal/app/suitegen/dbgen: random databases with
// the source database's schema, drawn from its own values and the golds'
// literals, cfg.MaxRows and cfg.SampleValues bounding them.
func DBGen(ctx context.Context, src string, golds []string, cfg Config) (Generator, error) {
	p, err := dbgen.Analyze(ctx, src, golds, dbgen.Config{MaxRows: cfg.MaxRows, SampleValues: cfg.SampleValues})
	if err != nil {
		return nil, err
	}
	return dbgenPlan{p}, nil
}

// dbgenPlan is a dbgen.Plan as a Generator.
type dbgenPlan struct{ p *dbgen.Plan }

// Generate writes the database of seed at dst.
func (g dbgenPlan) Generate(ctx context.Context, seed uint64, dst string) error {
	_, err := g.p.Generate(ctx, seed, dst)
	return err
}

// Empty writes the source's schema without rows at dst.
func (g dbgenPlan) Empty(ctx context.Context, dst string) error { return g.p.Empty(ctx, dst) }
