package dbgen

import (
	"context"
	"math"
	"math/rand/v2"
)

// Stats is what one Generate wrote.
type Stats struct {
	Rows map[string]int // rows written, by table (as the schema names it)
	// Refused counts the rows the engine refused: a CHECK they fail, or a
	// key the generator does not follow (an expression index, a collation).
	Refused int
}

// seedStream is the second word of the PCG state: the seed is the first.
const seedStream = 0x9e3779b97f4a7c15

// Generate writes a new SQLite database at dst (which must not exist)
// with the source's schema - its own CREATE TABLE, CREATE INDEX, CREATE
// VIEW and CREATE TRIGGER statements, so the engine enforces every
// declared constraint as it did there - and random rows drawn from the
// plan. The same plan and seed give the same file, byte for byte. On an
// error no file is left at dst.
func (p *Plan) Generate(ctx context.Context, seed uint64, dst string) (Stats, error) {
	w, err := create(ctx, dst, p.s.early)
	if err != nil {
		return Stats{}, err
	}
	g := p.newGeneration(seed)
	for _, t := range p.order {
		if err := g.fill(ctx, w, t); err != nil {
			w.abandon()
			return Stats{}, err
		}
	}
	if err := w.finish(ctx, p.s.late); err != nil {
		w.abandon()
		return Stats{}, err
	}
	return g.stats, nil
}

// Empty writes a new SQLite database at dst (which must not exist) with
// the source's schema and no rows.
func (p *Plan) Empty(ctx context.Context, dst string) error {
	w, err := create(ctx, dst, p.s.early)
	if err != nil {
		return err
	}
	if err := w.finish(ctx, p.s.late); err != nil {
		w.abandon()
		return err
	}
	return nil
}

// generation is the state of one Generate: its random source, the values
// each pool and column draws from in this database, and the rows written.
type generation struct {
	p      *Plan
	rng    *rand.Rand
	active [][]int   // per pool: the entries this database draws from (its distinct values, capped)
	golden [][]int   // per pool: the gold entries among active, drawn more often
	fresh  [][][]any // per table and column: a few new values, so that they repeat too
	freshP [][]float64
	rows   [][][]any // per table: the rows written
	stats  Stats
}

// newGeneration draws what one database draws from.
func (p *Plan) newGeneration(seed uint64) *generation {
	g := &generation{p: p, rng: rand.New(rand.NewPCG(seed, seedStream)), stats: Stats{Rows: map[string]int{}}}
	g.rows = make([][][]any, len(p.s.tables))
	for _, pl := range p.pools {
		act, gold := g.choose(pl)
		g.active, g.golden = append(g.active, act), append(g.golden, gold)
	}
	for _, t := range p.s.tables {
		fresh, freshP := make([][]any, len(t.columns)), make([]float64, len(t.columns))
		for ci, c := range t.columns {
			fresh[ci], freshP[ci] = g.freshSet(c)
		}
		g.fresh, g.freshP = append(g.fresh, fresh), append(g.freshP, freshP)
	}
	return g
}

// goldKeep is the chance a gold entry of a pool is among a database's
// values; goldShare the chance a drawn value is a gold one, when any are.
const (
	goldKeep  = 0.7
	goldShare = 0.4
)

// choose picks a pool's entries for this database: a capped number of its
// original values, at least one, far fewer on most draws (so values
// repeat, and DISTINCT, GROUP BY and COUNT variants differ), and most of
// its gold entries. A key's pool is not capped: its values may not repeat.
func (g *generation) choose(pl *pool) (active, golden []int) {
	var plain []int
	for i, gold := range pl.gold {
		if gold {
			if g.rng.Float64() < goldKeep {
				golden = append(golden, i)
			}
		} else {
			plain = append(plain, i)
		}
	}
	k := len(plain)
	if !pl.key {
		k = g.distinctCap(k)
	}
	for i := range k { // a partial Fisher-Yates shuffle: the first k of a random order
		j := i + g.rng.IntN(len(plain)-i)
		plain[i], plain[j] = plain[j], plain[i]
	}
	return append(plain[:k:k], golden...), golden
}

// distinctCap draws how many of n values a database uses: n to a uniform
// power in [0, 1], rounded up, so small caps are as likely as large ones
// on a log scale.
func (g *generation) distinctCap(n int) int {
	if n == 0 {
		return 0
	}
	k := int(math.Ceil(math.Pow(float64(n), g.rng.Float64())))
	return min(max(k, 1), n)
}

// freshShare is the share of a column's values that are new, in the half
// of the databases that have any; a CHECKed column has none, since a new
// value may break its check.
const freshShare = 0.15

// freshSet draws the few new values a column repeats in this database,
// and the share of its values they make.
func (g *generation) freshSet(c *column) ([]any, float64) {
	vals := make([]any, 1+g.rng.IntN(6))
	for i := range vals {
		vals[i] = g.freshValue(c, false)
	}
	if c.checked || c.stats.kind == kindBlob || g.rng.IntN(2) == 0 {
		return vals, 0
	}
	return vals, freshShare
}

// The chances a table is empty: a table others draw rows from empties
// them all, so it is empty less often.
const (
	emptyShare       = 0.08
	emptyParentShare = 0.02
)

// size draws table ti's row count: empty now and then, one to three rows
// sometimes, MaxRows sometimes, and mostly from ten up to MaxRows.
func (g *generation) size(ti int) int {
	most, empty := g.p.cfg.MaxRows, emptyShare
	if g.p.parent[ti] {
		empty = emptyParentShare
	}
	switch u := g.rng.Float64(); {
	case u < empty:
		return 0
	case u < empty+0.12:
		return min(1+g.rng.IntN(3), most)
	case u < empty+0.22:
		return most
	}
	lo := min(10, most)
	return lo + g.rng.IntN(most-lo+1)
}
