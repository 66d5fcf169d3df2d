package dbgen

import (
	"strings"
	"unicode/utf8"
)

// likeTexts are texts that match pattern (under SQLite's LIKE: % any run,
// _ any one character, ASCII letters in either case) and texts that do
// not: the pattern with its wildcards emptied or filled, in another case,
// and with a character dropped or added where the pattern pins its ends;
// and up to two of the column's own values that match.
func likeTexts(pattern string, own []string) []string {
	bare := fillWildcards(pattern, "", "a")
	filled := fillWildcards(pattern, "x", "b")
	var matching, other []string
	for _, s := range []string{bare, filled, strings.ToUpper(filled), swapFirstCase(bare), pattern} {
		if likeMatch(pattern, s) {
			matching = append(matching, s)
		}
	}
	for _, s := range append(textVariants(bare), "x"+filled, filled+"x", shiftLast(bare)) {
		if !likeMatch(pattern, s) {
			other = append(other, s)
		}
	}
	for _, s := range own {
		if len(matching) >= 7 {
			break
		}
		if likeMatch(pattern, s) {
			matching = append(matching, s)
		}
	}
	return append(matching, other...)
}

// shiftLast is s with its last character moved to the next letter ('w'
// to 'x', 'z' to 'a'; anything not a letter becomes 'q'), so that a
// pattern of one character has a text that misses it.
func shiftLast(s string) string {
	r, n := utf8.DecodeLastRuneInString(s)
	switch {
	case n == 0:
		return "q"
	case r == 'z' || r == 'Z':
		r -= 25
	case 'a' <= r && r < 'z' || 'A' <= r && r < 'Z':
		r++
	default:
		r = 'q'
	}
	return s[:len(s)-n] + string(r)
}

// fillWildcards replaces each % of pattern by run and each _ by one.
func fillWildcards(pattern, run, one string) string {
	return strings.NewReplacer("%", run, "_", one).Replace(pattern)
}

// likeMatch reports whether s matches pattern under SQLite's default LIKE
// (no ESCAPE): % matches any run of characters, _ any one, and ASCII
// letters match in either case. It backtracks to the last % only, so it
// takes time proportional to the product of the lengths at worst.
func likeMatch(pattern, s string) bool {
	p, t := []rune(pattern), []rune(s)
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && p[pi] == '%':
			star, mark = pi, ti
			pi++
		case pi < len(p) && (p[pi] == '_' || foldASCII(p[pi]) == foldASCII(t[ti])):
			pi++
			ti++
		case star >= 0:
			pi, mark = star+1, mark+1
			ti = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// foldASCII lowers an ASCII capital letter; other runes stay.
func foldASCII(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}
