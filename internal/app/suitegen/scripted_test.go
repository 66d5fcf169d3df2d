package suitegen

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/env/sqlite"
)

// scriptGen is a Generator whose databases a test writes itself: the
// database drawn with a seed is the schema followed by the rows script
// the test gave for that seed; the empty copy is the schema alone.
type scriptGen struct {
	schema string
	rows   map[uint64]string // by seed
}

// Generate writes the database of seed.
func (g scriptGen) Generate(ctx context.Context, seed uint64, dst string) error {
	rows, ok := g.rows[seed]
	if !ok {
		return fmt.Errorf("no database scripted for seed %d", seed)
	}
	return sqlite.Build(ctx, dst, g.schema+rows)
}

// Empty writes the schema alone.
func (g scriptGen) Empty(ctx context.Context, dst string) error {
	return sqlite.Build(ctx, dst, g.schema)
}

// scripted is a Planner whose candidate i is schema plus candidates[i]
// and whose held-out database i is schema plus heldOut[i], under the
// build's seed.
func scripted(schema string, candidates, heldOut []string) Planner {
	return func(_ context.Context, _ string, _ []string, cfg Config) (Generator, error) {
		g := scriptGen{schema: schema, rows: map[uint64]string{}}
		for i, rows := range candidates {
			g.rows[drawSeed(cfg.Seed, streamCandidates, uint64(i))] = rows
		}
		for i, rows := range heldOut {
			g.rows[drawSeed(cfg.Seed, streamHeldOut, uint64(i))] = rows
		}
		return g, nil
	}
}
