package valueindex

import (
	"encoding/hex"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Bounds of a query's terms: a longer query is cut to these many.
const (
	maxQueryWords = 32
	maxQueryGrams = 96
)

// fold lower-cases s and strips its accents ("Zoë" -> "zoe").
func fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return strings.ToLower(out)
}

// words are the folded words of s: runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// grams are the trigrams of each word, padded with a space at both ends
// ("ann" gives " an", "ann", "nn "), each written as the hex of its
// UTF-8 bytes: a token FTS4's simple tokenizer keeps whole.
func grams(ws []string) []string {
	var out []string
	for _, w := range ws {
		r := []rune(" " + w + " ")
		for i := 0; i+3 <= len(r); i++ {
			out = append(out, hex.EncodeToString([]byte(string(r[i:i+3]))))
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
