package suitegen

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/sqlgym/sqlgym/env"
)

// pool is one stream of generated databases of a source database: the
// candidates, or the held-out ones. A database is generated into the
// build's scratch folder on first use and stays open until close. A pool
// belongs to the one goroutine that builds its source database.
type pool struct {
	eng    env.Engine
	gen    Generator
	dir    string // the scratch folder
	prefix string // the files' prefix: "c" or "h"
	seed   uint64 // the build's seed
	stream uint64 // which stream of seeds: streamCandidates or streamHeldOut
	dbs    map[int]env.DB
}

// The seed streams of a build.
const (
	streamCandidates = 1
	streamHeldOut    = 2
)

// newPool returns an empty pool.
func newPool(eng env.Engine, gen Generator, dir, prefix string, seed, stream uint64) *pool {
	return &pool{eng: eng, gen: gen, dir: dir, prefix: prefix, seed: seed, stream: stream, dbs: map[int]env.DB{}}
}

// path is the scratch file of database i.
func (p *pool) path(i int) string {
	return filepath.Join(p.dir, fmt.Sprintf("%s-%04d.sqlite", p.prefix, i))
}

// db returns database i, generating and opening it on first use.
func (p *pool) db(ctx context.Context, i int) (env.DB, error) {
	if db, ok := p.dbs[i]; ok {
		return db, nil
	}
	if err := p.gen.Generate(ctx, drawSeed(p.seed, p.stream, uint64(i)), p.path(i)); err != nil {
		return nil, fmt.Errorf("generate %s %d: %w", p.prefix, i, err)
	}
	db, err := p.eng.Open(ctx, p.path(i))
	if err != nil {
		return nil, err
	}
	p.dbs[i] = db
	return db, nil
}

// made is how many databases the pool generated.
func (p *pool) made() int { return len(p.dbs) }

// close closes every database the pool opened.
func (p *pool) close() error {
	var errs []error
	for _, db := range p.dbs {
		errs = append(errs, db.Close())
	}
	return errors.Join(errs...)
}

// drawSeed is the seed of database i of a stream: the build's seed, the
// stream and the index mixed by SplitMix64's finalizer, so that nearby
// indexes and streams give unrelated seeds.
func drawSeed(seed, stream, i uint64) uint64 {
	return mix(mix(seed^mix(stream)) + i)
}

// mix is SplitMix64's finalizer.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
