package mysql

import (
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// TieKey is what an ORDER BY on this database may compare of v, for
// env.TieKeyer: text with its trailing spaces, case and accents dropped.
// MySQL's and MariaDB's default collations (utf8mb4_0900_ai_ci,
// utf8mb4_general_ci) tie 'Zoë', 'zoe' and 'zoe  ', and even the binary
// PAD SPACE collations tie trailing spaces. Keys that tie more often
// than the engine does only widen the set of right answers among rows
// the engine could order either way; keys that tie less often would let
// the engine's choice decide a verdict.
func (d *db) TieKey(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	return foldText(s)
}

// foldText drops s's trailing spaces, its accents and its case.
func foldText(s string) string {
	s = strings.TrimRight(s, " ")
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
		if out, _, err := transform.String(t, s); err == nil {
			s = out
		}
	}
	return strings.ToLower(s)
}
