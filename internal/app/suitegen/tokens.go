package suitegen

import (
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// tok is one significant token of a statement: sqltext's tokens without
// white space and comments, two-character operators (<=, >=, !=, <>, ==,
// ||) joined into one.
type tok struct {
	kind sqltext.Kind
	text string
}

// stmt is a statement as the edits see it: its significant tokens.
type stmt []tok

// lex reads sql into its significant tokens. A trailing semicolon is
// dropped: a neighbour is one statement.
func lex(sql string) stmt {
	var s stmt
	adjacent := false // the last token read was kept: no space or comment since
	for t := range sqltext.All(sql) {
		switch t.Kind {
		case sqltext.Space, sqltext.Comment:
			adjacent = false
			continue
		}
		if n := len(s); adjacent && t.Kind == sqltext.Punct && joins(s[n-1], t.Text) {
			s[n-1].text += t.Text
			continue
		}
		s = append(s, tok{kind: t.Kind, text: t.Text})
		adjacent = true
	}
	for len(s) > 0 && s[len(s)-1].kind == sqltext.Semicolon {
		s = s[:len(s)-1]
	}
	return s
}

// joins reports whether the punctuation next, right after prev, makes a
// two-character operator with it: "> =" stays two tokens.
func joins(prev tok, next string) bool {
	if prev.kind != sqltext.Punct || len(prev.text) != 1 {
		return false
	}
	switch prev.text + next {
	case "<=", ">=", "!=", "<>", "==", "||":
		return true
	}
	return false
}

// String renders the statement with single spaces between tokens, none
// around "." nor inside parentheses nor before ",", and none between a
// function's name and its "(".
func (s stmt) String() string {
	var b strings.Builder
	for i, t := range s {
		if i > 0 && spaceBetween(s[i-1], t) {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// spaceBetween says whether a space separates prev and next when rendered.
func spaceBetween(prev, next tok) bool {
	switch {
	case prev.text == "." || next.text == "." || next.text == "," || next.text == ")" || prev.text == "(":
		return false
	case next.text == "(" && prev.kind == sqltext.Word && !isKeyword(prev.text):
		return false
	}
	return true
}

// replace returns a copy of s with the tokens [i, j) replaced by with.
func (s stmt) replace(i, j int, with ...tok) stmt {
	out := make(stmt, 0, len(s)-(j-i)+len(with))
	out = append(out, s[:i]...)
	out = append(out, with...)
	return append(out, s[j:]...)
}

// is reports whether token i is the word w, case-insensitively.
func (s stmt) is(i int, w string) bool {
	return i >= 0 && i < len(s) && s[i].kind == sqltext.Word && strings.EqualFold(s[i].text, w)
}

// punct reports whether token i is the punctuation p.
func (s stmt) punct(i int, p string) bool {
	return i >= 0 && i < len(s) && s[i].kind == sqltext.Punct && s[i].text == p
}

// word is a keyword token written as given.
func word(w string) tok { return tok{kind: sqltext.Word, text: w} }

// depths returns, for each token, how many parentheses enclose it: an
// opening parenthesis is at the depth outside it, its closing one too.
func (s stmt) depths() []int {
	d := make([]int, len(s))
	depth := 0
	for i, t := range s {
		if t.kind == sqltext.Punct && t.text == ")" && depth > 0 {
			depth--
		}
		d[i] = depth
		if t.kind == sqltext.Punct && t.text == "(" {
			depth++
		}
	}
	return d
}
