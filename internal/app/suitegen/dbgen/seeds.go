package dbgen

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// literalTexts returns the texts a gold literal seeds a column with: the
// literal and values around it, as texts the column's class then types.
// A number gives v-1, v, v+1 (an integer) or v and v plus or minus the
// column's smallest step (a real); a date, the day before and after, in
// its own layout and in the column's; other text, its case variants, a
// prefix and a suffix added, the first and the last character dropped;
// a LIKE pattern, texts that match it and texts that do not.
func literalTexts(c *column, lit literal) []string {
	switch {
	case lit.op == "like":
		return likeTexts(lit.text, c.stats.texts)
	case looksNumeric(lit.text):
		return numberTexts(lit.text, &c.stats)
	case dateLayout(lit.text) != "":
		return dateTexts(lit.text, c.stats.layout)
	}
	return textVariants(lit.text)
}

// numberTexts are a number and its neighbours: an integer and the
// integers either side; a real, or any number a column of reals meets,
// and the values one step either side, the step being the finer of its
// own precision and the column's (a tenth at the coarsest); a real's
// floor and ceiling too, for a column of integers.
func numberTexts(text string, s *colStats) []string {
	text = strings.TrimSpace(text)
	var out []string
	i, err := strconv.ParseInt(text, 10, 64)
	isInt := err == nil && i > math.MinInt64 && i < math.MaxInt64
	if isInt {
		out = append(out, strconv.FormatInt(i-1, 10), text, strconv.FormatInt(i+1, 10))
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return append(out, text)
	}
	if isInt && s.kind != kindReal && s.kind != kindTextReal {
		return out
	}
	d := max(decimals(text), s.decimals, 1)
	step := math.Pow10(-d)
	format := func(v float64) string { return strconv.FormatFloat(v, 'f', d, 64) }
	return append(out, format(f-step), text, format(f), format(f+step),
		strconv.FormatFloat(math.Floor(f), 'f', -1, 64), strconv.FormatFloat(math.Ceil(f), 'f', -1, 64))
}

// dateTexts are a date and the days either side, in its own layout and in
// the column's, when the column has one.
func dateTexts(text, colLayout string) []string {
	own := dateLayout(text)
	out := []string{text}
	for _, layout := range []string{own, colLayout} {
		if layout == "" {
			continue
		}
		for _, days := range []int{-1, 0, 1} {
			if s, ok := relayout(text, own, layout); ok {
				if s, ok = shiftDays(s, layout, days); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// textVariants are a text, its case variants, a prefix and a suffix
// added, and its first and last character dropped, so that = and LIKE
// '%x%', and a case-sensitive comparison and a case-blind one, differ.
func textVariants(s string) []string {
	out := []string{s, strings.ToUpper(s), strings.ToLower(s), swapFirstCase(s), "x" + s, s + "x"}
	if utf8.RuneCountInString(s) > 1 {
		_, first := utf8.DecodeRuneInString(s)
		_, last := utf8.DecodeLastRuneInString(s)
		out = append(out, s[first:], s[:len(s)-last])
	}
	return out
}

// swapFirstCase is s with the case of its first letter swapped.
func swapFirstCase(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	switch {
	case unicode.IsUpper(r):
		return string(unicode.ToLower(r)) + s[n:]
	case unicode.IsLower(r):
		return string(unicode.ToUpper(r)) + s[n:]
	}
	return s
}
