package suitegen

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// literals changes each number (not a LIMIT's, which limit moves) and
// each string: '...' strings and the double-quoted ones no column claims.
func (e *editor) literals() {
	inLimit := map[int]bool{}
	for _, c := range e.l.ofKind("limit") {
		for k := c.body; k < c.end; k++ {
			inLimit[k] = true
		}
	}
	for i, t := range e.s {
		switch {
		case t.kind == sqltext.Number && !inLimit[i]:
			e.numberVariants(i)
		case t.kind == sqltext.String && strings.HasPrefix(t.text, "'"):
			e.stringVariants(i, '\'')
		}
	}
	for _, i := range e.r.strs {
		e.stringVariants(i, '"')
	}
}

// numberVariants emits the changes of the number at token i: an integer
// v becomes v-1, v+1 and two draws from [-|v|-1, |v|+1]; a float v
// becomes v-0.1, v+0.1 and two draws from [-|v|, |v|].
func (e *editor) numberVariants(i int) {
	text := e.s[i].text
	var vs []string
	if v, err := strconv.ParseInt(text, 10, 64); err == nil && v > math.MinInt64+2 && v < math.MaxInt64-2 {
		a := v
		if a < 0 {
			a = -a
		}
		vs = append(vs, strconv.FormatInt(v-1, 10), strconv.FormatInt(v+1, 10))
		for range draws(a < 1<<52) {
			vs = append(vs, strconv.FormatInt(e.rng.Int64N(2*a+3)-a-1, 10))
		}
	} else if f, err := strconv.ParseFloat(text, 64); err == nil && !math.IsInf(f, 0) {
		vs = append(vs, formatFloat(f-0.1), formatFloat(f+0.1))
		for range draws(math.Abs(f) < 1<<52) {
			vs = append(vs, formatFloat((e.rng.Float64()*2-1)*math.Abs(f)))
		}
	}
	for _, v := range vs {
		if v != text {
			e.emit(EditLiteral, e.s.replace(i, i+1, tok{kind: sqltext.Number, text: v}))
		}
	}
}

// draws is how many random values a literal gets: two, none when its
// magnitude is too large to draw around.
func draws(small bool) int {
	if small {
		return 2
	}
	return 0
}

// formatFloat writes f rounded to two decimals, always with a point so
// that it stays a float.
func formatFloat(f float64) string {
	s := strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
	if s == "-0" {
		s = "0"
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// stringVariants emits the changes of the string at token i, quoted by
// q: substrings, a one-span deletion, the %-wrapped form (or the
// unwrapped one of a pattern) and case variants.
func (e *editor) stringVariants(i int, q byte) {
	text := e.s[i].text
	if len(text) < 2 {
		return
	}
	v := strings.ReplaceAll(text[1:len(text)-1], string(q)+string(q), string(q))
	if quote(v, q) != text {
		return // unterminated
	}
	seen := map[string]bool{v: true}
	for _, w := range e.stringChanges(v) {
		if !seen[w] {
			seen[w] = true
			e.emit(EditLiteral, e.s.replace(i, i+1, tok{kind: e.s[i].kind, text: quote(w, q)}))
		}
	}
}

// quote writes v between the quotes q, each q in it doubled.
func quote(v string, q byte) string {
	return string(q) + strings.ReplaceAll(v, string(q), string(q)+string(q)) + string(q)
}

// stringChanges returns the changed forms of the string v.
func (e *editor) stringChanges(v string) []string {
	r := []rune(v)
	var out []string
	if n := len(r); n >= 2 {
		out = append(out, string(r[1:]), string(r[:n-1]), string(r[:n/2]), string(r[n/2:]))
		a := e.rng.IntN(n)
		b := a + 1 + e.rng.IntN(n-a)
		out = append(out, string(r[a:b]))
		if a > 0 || b < n {
			out = append(out, string(r[:a])+string(r[b:]))
		}
	}
	if trimmed := strings.Trim(v, "%"); trimmed != v {
		out = append(out, trimmed)
	} else if v != "" {
		out = append(out, "%"+v+"%")
	}
	return append(out, strings.ToUpper(v), strings.ToLower(v), title(v))
}

// title capitalizes the first letter of each word of v and lowers the
// rest.
func title(v string) string {
	r := []rune(strings.ToLower(v))
	for k := range r {
		if k == 0 || !unicode.IsLetter(r[k-1]) && !unicode.IsDigit(r[k-1]) {
			r[k] = unicode.ToUpper(r[k])
		}
	}
	return string(r)
}
