package dbgen

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// Plan is what generation needs of one source database: its schema, each
// column's value pool and NULL share, the foreign keys rows follow and
// the order tables are filled in. It is read-only once Analyze returns,
// so any number of Generate calls may run on it at once.
type Plan struct {
	cfg      Config
	s        *schema
	keys     []*foreignKey   // the keys rows follow: declared ones, then those the golds' joins infer
	unusable []foreignKey    // declared keys that name what the schema lacks
	sources  [][]*foreignKey // per table: the keys it draws rows from, in keys' order
	parent   []bool          // per table: other tables draw rows from it
	order    []int           // the tables in the order they are filled
	pools    []*pool
	golds    int
	rejected []int // indexes of the golds SQLite could not prepare on the source
}

// Analyze reads the SQLite database at src (read-only: its schema, its
// values, its NULLs) and the gold queries asked of it (SQLite dialect),
// and returns what generation needs. A gold that SQLite cannot prepare on
// src is left out of the seeding and counted (Description.RejectedGolds);
// a file that is no readable database, or a schema SQLite cannot create
// again, is an error.
func Analyze(ctx context.Context, src string, golds []string, cfg Config) (*Plan, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	db, conn, err := openSource(ctx, src)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	defer conn.Close()
	s, err := readSchema(ctx, conn)
	if err != nil {
		return nil, err
	}
	if err := checkSchema(ctx, s); err != nil {
		return nil, err
	}
	for _, t := range s.tables {
		if err := t.readStats(ctx, conn, cfg.SampleValues); err != nil {
			return nil, err
		}
	}
	p := &Plan{cfg: cfg, s: s, golds: len(golds)}
	return p, p.build(ctx, conn, golds)
}

// build reads the golds and derives the keys, the fill order, the pools
// and the NULL shares.
func (p *Plan) build(ctx context.Context, conn *sql.Conn, golds []string) error {
	facts, err := p.readGolds(ctx, conn, golds)
	if err != nil {
		return err
	}
	p.collectDeclared()
	if err := p.inferKeys(ctx, conn, facts.joins); err != nil {
		return err
	}
	p.order = p.fillOrder()
	p.collectSources()
	p.seed(facts.literals)
	p.buildPools()
	for _, t := range p.s.tables {
		for _, c := range t.columns {
			c.nullP = nullShare(c)
		}
	}
	return nil
}

// readGolds prepares each gold on the source and reads the literals and
// joins of those SQLite accepts; one with no statement is rejected too.
func (p *Plan) readGolds(ctx context.Context, conn *sql.Conn, golds []string) (goldFacts, error) {
	var all goldFacts
	for i, g := range golds {
		if err := ctx.Err(); err != nil {
			return all, fmt.Errorf("dbgen: golds: %w", err)
		}
		if sqltext.Empty(g) || !prepares(ctx, conn, g) {
			p.rejected = append(p.rejected, i)
			continue
		}
		f := readGold(p.s, g)
		all.literals = append(all.literals, f.literals...)
		all.joins = append(all.joins, f.joins...)
	}
	return all, nil
}

// prepares reports whether SQLite can prepare query on conn.
func prepares(ctx context.Context, conn *sql.Conn, query string) bool {
	st, err := conn.PrepareContext(ctx, query)
	if err != nil {
		return false
	}
	st.Close()
	return true
}

// The NULL rule's bounds on the share of NULLs a column gets.
const (
	minNullShare = 0.1
	maxNullShare = 0.9
)

// nullShare is the NULL rule: a column gets NULLs only when it may hold
// them (not NOT NULL, not in the primary key) and the source holds at
// least one NULL in it; then in the source's share of its rows, kept
// between a tenth (so they show) and nine tenths (so values do too).
func nullShare(c *column) float64 {
	if c.notNull || c.inPK || c.stats.nulls == 0 {
		return 0
	}
	return min(max(c.stats.nullShare(), minNullShare), maxNullShare)
}
