package hardness

import (
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// tokens splits sql the way process_sql.tokenize does: string values are
// one token each, kept with a leading double quote (the evaluator turns
// every quote into one); everything else is lowercased; "alias.column"
// is one token; ">=", "<=" and "!=" are one token; a sign written
// against a number is part of it.
func tokens(sql string) []string {
	var out []string
	spaced := true // white space (or the start) before the next token
	for _, t := range sqltext.Tokens(sql) {
		switch t.Kind {
		case sqltext.Space, sqltext.Comment:
			spaced = true
			continue
		case sqltext.String:
			out = append(out, `"`+unquote(t.Text))
		case sqltext.Ident:
			if t.Text[0] == '"' {
				out = append(out, `"`+unquote(t.Text)) // "x" is a value to the evaluator
			} else {
				out = appendWord(out, strings.ToLower(unquote(t.Text)), spaced)
			}
		case sqltext.Word, sqltext.Number:
			out = appendWord(out, strings.ToLower(t.Text), spaced)
		case sqltext.Semicolon:
			out = append(out, ";")
		default:
			out = appendPunct(out, t.Text, spaced)
		}
		spaced = false
	}
	return out
}

// unquote strips a quoted token's first and last byte.
func unquote(s string) string {
	if len(s) >= 2 {
		return s[1 : len(s)-1]
	}
	return s[1:]
}

// appendWord appends a word or number, joining it to a "name." or a
// sign written against it.
func appendWord(out []string, w string, spaced bool) []string {
	if n := len(out); n > 0 && !spaced {
		last := out[n-1]
		switch {
		case strings.HasSuffix(last, ".") && len(last) > 1 && isName(last[:len(last)-1]):
			out[n-1] = last + w
			return out
		case (last == "-" || last == "+") && isNumber(w) && unary(out[:n-1]):
			out[n-1] = last + w
			return out
		}
	}
	return append(out, w)
}

// appendPunct appends one punctuation character, joining "name." and the
// two-character comparison operators.
func appendPunct(out []string, p string, spaced bool) []string {
	n := len(out)
	if n == 0 {
		return append(out, p)
	}
	last := out[n-1]
	switch {
	case p == "=" && (last == "!" || last == ">" || last == "<"):
		out[n-1] = last + "="
		return out
	case p == ">" && last == "<" && !spaced:
		out[n-1] = "!="
		return out
	case p == "." && !spaced && isName(last):
		out[n-1] = last + "."
		return out
	case p == "*" && !spaced && strings.HasSuffix(last, ".") && len(last) > 1:
		out[n-1] = last + "*"
		return out
	}
	return append(out, p)
}

// unary reports whether a sign after these tokens is a number's sign,
// not subtraction or addition.
func unary(before []string) bool {
	if len(before) == 0 {
		return true
	}
	last := before[len(before)-1]
	return !(isName(last) || isValue(last) || last == ")" || last == "*")
}

// isName reports whether tok is a bare word (a column, a table, a
// keyword, a number).
func isName(tok string) bool {
	if tok == "" || isValue(tok) {
		return false
	}
	c := tok[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// isValue reports whether tok is a string value.
func isValue(tok string) bool { return strings.HasPrefix(tok, `"`) }

// isNumber reports whether tok reads as a number, as Python's float does.
func isNumber(tok string) bool {
	_, err := strconv.ParseFloat(tok, 64)
	return err == nil
}
