package suitegen

import (
	"hash/fnv"
	"math/rand/v2"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// MaxGoldTokens bounds the tokens of a gold that gets neighbours: Spider's
// golds run under 100 tokens, BIRD's to a few hundred.
const MaxGoldTokens = 1000

// Neighbours returns the neighbours of gold, the queries one edit away
// from it (package doc): distinct after sqltext.Normalize, none equal to
// gold, in an order drawn from seed and gold alone, so that taking the
// first n that run is a deterministic choice that does not depend on the
// other golds. sc is the schema of gold's database; the column edits need
// it. A gold of more than MaxGoldTokens tokens has none: its neighbours
// would cost the square of its length to write.
func Neighbours(gold string, sc *Schema, seed uint64) []Neighbour {
	s := lex(gold)
	if len(s) > MaxGoldTokens {
		return nil
	}
	rng := goldRand(seed, gold)
	all := edits(s, sc, rng)
	seen := map[string]bool{sqltext.Normalize(gold): true}
	out := all[:0]
	for _, n := range all {
		key := sqltext.Normalize(n.SQL)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, n)
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// goldRand is the random source of one gold's neighbours.
func goldRand(seed uint64, gold string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(gold))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
