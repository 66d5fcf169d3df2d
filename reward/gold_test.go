package reward

import (
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// birdReference is MatchBird as it was before the gold's row set was
// shared: both row sets built over one interner, then compared.
func birdReference(pred, gold [][]any) bool {
	in := newInterner()
	g, p := referenceRowSet(in, gold), referenceRowSet(in, pred)
	if len(g) != len(p) {
		return false
	}
	for k := range p {
		if _, ok := g[k]; !ok {
			return false
		}
	}
	return true
}

func referenceRowSet(in *interner, rows [][]any) map[string]struct{} {
	set := make(map[string]struct{}, len(rows))
	var buf []byte
	for _, row := range rows {
		ids := []int32{int32(len(row))}
		for _, v := range row {
			ids = append(ids, in.id(v))
		}
		buf = idsKey(buf[:0], ids)
		set[string(buf)] = struct{}{}
	}
	return set
}

// FuzzGoldMatch checks a prepared gold against the reference bird rule
// and against Match in every mode, with the ragged row on either side.
func FuzzGoldMatch(f *testing.F) {
	f.Add([]byte{0x01, 2, 2, 0x11, 0x21, 0x21, 0x11})
	f.Add([]byte{0x01, 3, 2, 0x11, 0x21, 0x11, 0x21, 0x11})
	f.Add([]byte{0x43, 3, 3, 0x01, 0x13, 0x05, 0x08, 0x07, 0x00, 0x08, 0x01, 0x05, 0x00, 0x03, 0x07})
	f.Add([]byte{0x92, 2, 2, 0x09, 0x0a, 0x1c, 0x13, 0x0c, 0x0b, 0x0a, 0x09})
	f.Add([]byte{0x81, 1, 1, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		pred, gold, ordered, tol := fuzzRows(data)
		for _, pair := range [][2][][]any{{pred, gold}, {gold, pred}} {
			p, g := pair[0], pair[1]
			if got, want := MatchBird(p, g), birdReference(p, g); got != want {
				t.Fatalf("MatchBird(%v, %v) = %v, reference %v", p, g, got, want)
			}
			prepared := NewGold(g)
			for _, mode := range []string{schemas.MatchBird, schemas.MatchSpider, schemas.MatchTolerant} {
				spec := schemas.RewardSpec{Match: mode, FloatTolerance: tol}
				for range 2 { // the second match reuses what the first built
					if got, want := prepared.Match(spec, p, ordered), Match(spec, p, g, ordered); got != want {
						t.Fatalf("%s: Gold.Match(%v) against %v = %v, Match %v", mode, p, g, got, want)
					}
				}
			}
		}
	})
}

// TestGoldConcurrent matches one prepared gold from many goroutines, some
// matching and some not, for the race detector to watch.
func TestGoldConcurrent(t *testing.T) {
	gold := [][]any{{int64(1), "a"}, {2.5, []byte("b")}, {nil, "a"}}
	same := [][]any{{nil, "a"}, {int64(1), "a"}, {2.5, []byte("b")}, {1.0, "a"}}
	other := [][]any{{int64(1), "a"}, {2.5, []byte("c")}, {nil, "a"}}
	g := NewGold(gold)
	bird := schemas.RewardSpec{Match: schemas.MatchBird}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 16 {
		wg.Go(func() {
			pred, want := same, true
			if i%2 == 1 {
				pred, want = other, false
			}
			if g.Match(bird, pred, false) != want {
				errs <- "wrong verdict"
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
