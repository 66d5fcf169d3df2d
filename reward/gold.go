package reward

import (
	"sync"

	"github.com/sqlgym/sqlgym/schemas"
)

// Gold is a gold result prepared for matching many predictions against
// it: what depends only on the gold (its row set, for the bird mode) is
// built once, on first need, and shared. It is safe for concurrent use;
// the rows must not change after NewGold.
type Gold struct {
	rows [][]any
	once sync.Once
	bird *birdGold // built by once
}

// NewGold prepares rows as a gold result. It does no work until a match
// needs it.
func NewGold(rows [][]any) *Gold { return &Gold{rows: rows} }

// Match reports Match(spec, pred, the gold's rows, ordered).
func (g *Gold) Match(spec schemas.RewardSpec, pred [][]any, ordered bool) bool {
	if spec.Match != schemas.MatchBird {
		return Match(spec, pred, g.rows, ordered)
	}
	g.once.Do(func() { g.bird = newBirdGold(g.rows) })
	return g.bird.match(pred)
}

// birdGold is a gold's row set for the bird mode: its values interned,
// and each distinct row's key (width, then the values' ids) numbered.
// Read-only once built.
type birdGold struct {
	in   *interner
	rows map[string]int32
}

func newBirdGold(rows [][]any) *birdGold {
	b := &birdGold{in: newInterner(), rows: make(map[string]int32, len(rows))}
	var buf []byte
	ids := make([]int32, 0, 8)
	for _, row := range rows {
		ids = append(ids[:0], int32(len(row)))
		for _, v := range row {
			ids = append(ids, b.in.id(v))
		}
		buf = idsKey(buf[:0], ids)
		if _, ok := b.rows[string(buf)]; !ok {
			b.rows[string(buf)] = int32(len(b.rows))
		}
	}
	return b
}

// match reports set(pred) == set(gold): every row of pred is a gold row,
// and every distinct gold row is met. A value the gold does not hold puts
// its row outside the gold's set, so pred's values are only looked up.
func (b *birdGold) match(pred [][]any) bool {
	seen := make([]uint64, (len(b.rows)+63)/64)
	met := 0
	var key, buf []byte
	ids := make([]int32, 0, 8)
	for _, row := range pred {
		ids = append(ids[:0], int32(len(row)))
		for _, v := range row {
			id, ok := b.in.lookup(v, &key)
			if !ok {
				return false
			}
			ids = append(ids, id)
		}
		buf = idsKey(buf[:0], ids)
		r, ok := b.rows[string(buf)]
		if !ok {
			return false
		}
		if w, bit := r/64, uint64(1)<<(r%64); seen[w]&bit == 0 {
			seen[w] |= bit
			met++
		}
	}
	return met == len(b.rows)
}
