package valueindex

import (
	"fmt"
	"sort"
)

// What a value adds to its index file, about: an entry (its row of the
// values, its documents in the two full-text indexes), and per byte of
// text its words and their trigrams. Measured on columns of one to six
// distinct random 6-letter words a value (7 to 41 bytes): 148 to 718
// bytes of file a value. Words shared between values take less, so a
// file comes out at or below its bound.
const (
	entryBytes = 48
	textBytes  = 16
)

// valueCost is what value v is charged against Config.MaxBytes.
func valueCost(v string) int64 { return entryBytes + textBytes*int64(len(v)) }

// How the budget is shared (Config.MaxBytes). Columns are indexed in
// turn, each its most frequent values first, and each may take what is
// left less a reserve of half an equal share for every text column still
// to come: a database within the bound is indexed whole in one pass.
// When columns were cut, what is left of the bound is shared among them
// by water-filling (each gets what it lacks, up to a level that spends
// the rest), and each is read again from where it was cut. Every cut
// column thus keeps at least half an equal share, and none is cut while
// room is left that it could use.

// reserveFor is the room kept for each text column not read yet.
func reserveFor(maxBytes int64, textCols int) int64 { return maxBytes / int64(2*max(textCols, 1)) }

// waterFill shares left among needs: each gets min(need, level), with
// the level the highest that spends at most left.
func waterFill(left int64, needs []int64) []int64 {
	out := make([]int64, len(needs))
	order := make([]int, len(needs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return needs[order[a]] < needs[order[b]] })
	for n, i := range order {
		share := left / int64(len(order)-n)
		out[i] = min(max(needs[i], 0), share)
		left -= out[i]
	}
	return out
}

// Why a column was cut, as a search's reply names it.
func (c Config) boundBytes() string {
	return fmt.Sprintf("--value-index-max-bytes, an index of %s per database", sizeText(c.MaxBytes))
}

func (c Config) boundDistinct() string {
	return fmt.Sprintf("--value-index-max-distinct, %d values per column", c.MaxDistinct)
}

func (c Config) boundValues() string {
	return fmt.Sprintf("--value-index-max-values, %d values per database", c.MaxValues)
}

// sizeText writes n bytes in the largest binary unit that divides it,
// or in bytes.
func sizeText(n int64) string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
