package valueindex

import (
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Bounds of the terms made from a text: a query is searched by at most
// maxQueryWords distinct words and maxQueryGrams distinct trigrams (the
// reply says when a query had more), and a stored value is indexed by
// at most maxValueWords words and their first maxValueGrams trigrams.
const (
	maxQueryWords = 16
	maxQueryGrams = 96
	maxValueWords = 32
	maxValueGrams = 96
)

// cut is s up to its first n characters.
func cut(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// fold lower-cases s and strips its accents ("Zoë" -> "zoe"). ASCII text
// has no accents to strip, and is only lower-cased: most stored values
// are, and the build folds every one.
func fold(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return strings.ToLower(out)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// words are the first n distinct folded words of s (runs of letters and
// digits), and whether s held more.
func words(s string, n int) ([]string, bool) {
	var out []string
	seen := map[string]bool{}
	for w := range strings.FieldsFuncSeq(fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if seen[w] {
			continue
		}
		if len(out) == n {
			return out, true
		}
		seen[w] = true
		out = append(out, w)
	}
	return out, false
}

// grams are the trigrams of each word, padded with a space at both ends
// ("ann" gives " an", "ann", "nn "), each written as the hex of its
// UTF-8 bytes: a token FTS4's simple tokenizer keeps whole. It stops at
// n distinct trigrams, and reports whether the words held more.
func grams(ws []string, n int) ([]string, bool) {
	var out []string
	seen := map[string]bool{}
	for _, w := range ws {
		r := []rune(" " + w + " ")
		for i := 0; i+3 <= len(r); i++ {
			g := hex.EncodeToString([]byte(string(r[i : i+3])))
			if seen[g] {
				continue
			}
			if len(out) == n {
				return out, true
			}
			seen[g] = true
			out = append(out, g)
		}
	}
	return out, false
}
