package dbgen

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// freshValue makes a value the source may not have, of the column's kind:
// a number in (a little beyond) the sample's range, a date between its
// first and last, a text like its own with a change, or a random one.
// wide stretches the range far enough for a key to find new values.
func (g *generation) freshValue(c *column, wide bool) any {
	s := &c.stats
	var v any
	switch s.kind {
	case kindInt:
		v = int64(g.freshNumber(s, wide, 0))
	case kindReal:
		v = g.freshNumber(s, wide, max(s.decimals, 1))
	case kindTextInt:
		v = strconv.FormatInt(int64(g.freshNumber(s, wide, 0)), 10)
	case kindTextReal:
		v = strconv.FormatFloat(g.freshNumber(s, wide, s.decimals), 'f', s.decimals, 64)
	case kindDate:
		v = g.freshDate(s, wide)
	case kindBlob:
		v = []byte(g.randomText(8))
	default:
		v = g.freshText(s, wide)
	}
	if !c.storable(v) {
		v = "x" + v.(string)
	}
	return v
}

// freshNumber draws a number in the sample's range widened by a quarter
// each side (by many rows' worth when wide), rounded to digits decimals.
func (g *generation) freshNumber(s *colStats, wide bool, digits int) float64 {
	lo, hi := s.lo, s.hi
	pad := max((hi-lo)/4, 2)
	lo, hi = lo-pad, hi+pad
	if wide {
		hi += (hi - lo) + float64(4*g.p.cfg.MaxRows)
	}
	f := lo + g.rng.Float64()*(hi-lo)
	scale := math.Pow10(digits)
	f = math.Round(f*scale) / scale
	return max(min(f, 1<<53), -(1 << 53))
}

// freshDate draws a date between the sample's first and last (and a
// year on, when wide), to the second, in the column's layout.
func (g *generation) freshDate(s *colStats, wide bool) string {
	from, to := s.from, s.to
	if wide {
		to += 366 * 86400
	}
	u := from + int64(g.rng.Float64()*float64(to-from+1))
	return time.Unix(u, 0).UTC().Format(s.layout)
}

// freshText changes one of the sample's texts (a piece added at either
// end, a character dropped from either end, the first letter's case
// swapped), or, when wide or there is none to change, makes a random one
// of a length the sample has.
func (g *generation) freshText(s *colStats, wide bool) string {
	own := s.texts
	if wide || len(own) == 0 {
		n := s.minLen + g.rng.IntN(s.maxLen-s.minLen+1)
		return g.randomText(max(n, 4))
	}
	t := own[g.rng.IntN(len(own))]
	_, first := utf8.DecodeRuneInString(t)
	_, last := utf8.DecodeLastRuneInString(t)
	switch g.rng.IntN(5) {
	case 0:
		return t + g.randomText(1+g.rng.IntN(3))
	case 1:
		return g.randomText(1+g.rng.IntN(3)) + t
	case 2:
		return t[first:]
	case 3:
		return t[:len(t)-last]
	}
	return swapFirstCase(t)
}

// letters are what random texts are made of.
const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ "

// randomText is n random letters (a space among them now and then).
func (g *generation) randomText(n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(letters[g.rng.IntN(len(letters))])
	}
	return b.String()
}
