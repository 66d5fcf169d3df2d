package valueindex

import (
	"encoding/hex"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Bounds of a query's terms: a longer query is cut to these many
// distinct words and trigrams.
const (
	maxQueryWords = 32
	maxQueryGrams = 96
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

// fold lower-cases s and strips its accents ("Zoë" -> "zoe").
func fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return strings.ToLower(out)
}

// words are the first maxQueryWords distinct folded words of s: runs of
// letters and digits.
func words(s string) []string {
	var out []string
	seen := map[string]bool{}
	for w := range strings.FieldsFuncSeq(fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(out) == maxQueryWords {
			break
		}
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// grams are the trigrams of each word, padded with a space at both ends
// ("ann" gives " an", "ann", "nn "), each written as the hex of its
// UTF-8 bytes: a token FTS4's simple tokenizer keeps whole. It stops at
// maxQueryGrams distinct trigrams.
func grams(ws []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range ws {
		r := []rune(" " + w + " ")
		for i := 0; i+3 <= len(r); i++ {
			if len(out) == maxQueryGrams {
				return out
			}
			g := hex.EncodeToString([]byte(string(r[i : i+3])))
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	return out
}

// matchQuery writes terms as an FTS4 query matching any of them, each
// once, at most n; "" when there are none. Terms hold only letters,
// digits or hex, so quoting them is enough.
func matchQuery(terms []string, n int) string {
	seen := map[string]bool{}
	var parts []string
	for _, t := range terms {
		if seen[t] || len(parts) == n {
			continue
		}
		seen[t] = true
		parts = append(parts, `"`+t+`"`)
	}
	return strings.Join(parts, " OR ")
}
