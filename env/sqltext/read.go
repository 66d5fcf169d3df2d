package sqltext

import "strings"

// sig is one significant token of a statement: neither white space nor a
// comment.
type sig struct {
	Token
	at    int // byte offset of the token in the statement
	depth int // parentheses open around it; a parenthesis has its outer depth
}

// end is the byte offset just past the token.
func (s sig) end() int { return s.at + len(s.Text) }

// is reports whether the token is one of the keywords words (upper case).
func (s sig) is(words ...string) bool {
	if s.Kind != Word {
		return false
	}
	for _, w := range words {
		if strings.EqualFold(s.Text, w) {
			return true
		}
	}
	return false
}

// statement is one SELECT statement read for its top-level clauses: the
// select list, GROUP BY, ORDER BY and the LIMIT/OFFSET window.
type statement struct {
	sql    string
	toks   []sig
	lo, hi int // the body in toks: past any WITH list and enclosing parentheses, before trailing semicolons
	base   int // the depth of the body's top level

	selectAt   int    // toks index of the leading SELECT; -1 when the body opens with a parenthesized arm
	listFrom   int    // first token of the select list, past DISTINCT and other modifiers
	items      []item // the select list; nil when selectAt < 0
	distinct   bool   // SELECT DISTINCT (DISTINCTROW, DISTINCT ON)
	distinctOn bool   // PostgreSQL's SELECT DISTINCT ON (...)
	compound   bool   // a top-level UNION, INTERSECT or EXCEPT
	groupAt    int    // toks index of the first select's GROUP; -1 when none
	orderAt    int    // toks index of the top-level ORDER; -1 when none
	terms      []term // the ORDER BY terms
	winAt      int    // toks index of the window's first keyword; hi when none
	win        Window
}

// read reads sql, one SELECT (or WITH ... SELECT) statement, and reports
// whether every part the questions of this package ask about could be
// read: balanced parentheses, closed strings and comments, a LIMIT of
// numbers, an ORDER BY after the last compound operator.
func read(sql string) (*statement, bool) {
	toks, ok := significant(sql)
	if !ok {
		return nil, false
	}
	hi := len(toks)
	for hi > 0 && toks[hi-1].Kind == Semicolon {
		hi--
	}
	s := &statement{sql: sql, toks: toks, hi: hi, selectAt: -1, groupAt: -1, orderAt: -1}
	for _, t := range toks[:hi] {
		if t.Kind == Semicolon {
			return nil, false // more than one statement
		}
	}
	if !s.body() || !s.scan() {
		return nil, false
	}
	return s, s.readList()
}

// significant lexes sql into its significant tokens, with their offsets
// and depths; false when a parenthesis is unbalanced or a string, quoted
// identifier or block comment is not closed.
func significant(sql string) ([]sig, bool) {
	var out []sig
	at, depth := 0, 0
	for t := range All(sql) {
		if !closed(t) {
			return nil, false
		}
		if t.Kind != Space && t.Kind != Comment {
			if t.Text == ")" {
				depth--
			}
			if depth < 0 {
				return nil, false
			}
			out = append(out, sig{Token: t, at: at, depth: depth})
			if t.Text == "(" {
				depth++
			}
		}
		at += len(t.Text)
	}
	return out, depth == 0
}

// closed reports whether a string, quoted identifier or block comment
// ends where its closing quote or */ says: one that runs to the end of the
// text would swallow whatever were written after it.
func closed(t Token) bool {
	switch {
	case t.Kind == String, t.Kind == Ident, t.Kind == Comment && strings.HasPrefix(t.Text, "/*"):
		_, n := next(t.Text + " ")
		return n == len(t.Text)
	}
	return true
}

// body narrows [lo, hi) to the statement's body: past WITH lists and
// parentheses that enclose all of it. The body opens with SELECT or with a
// parenthesized arm of a compound select.
func (s *statement) body() bool {
	for s.lo < s.hi {
		switch t := s.toks[s.lo]; {
		case t.is("WITH"):
			if !s.skipWith() {
				return false
			}
		case t.Text == "(" && s.match(s.lo) == s.hi-1:
			s.lo, s.hi, s.base = s.lo+1, s.hi-1, s.base+1
		default:
			return t.is("SELECT") || t.Text == "("
		}
	}
	return false
}

// skipWith moves lo past a WITH [RECURSIVE] list of common table
// expressions: name [(columns)] AS [[NOT] MATERIALIZED] (query), ...
func (s *statement) skipWith() bool {
	i := s.lo + 1
	if s.at(i).is("RECURSIVE") {
		i++
	}
	for {
		if k := s.at(i).Kind; k != Word && k != Ident {
			return false
		}
		i++
		if s.at(i).Text == "(" {
			i = s.match(i) + 1
		}
		if !s.at(i).is("AS") {
			return false
		}
		i++
		if s.at(i).is("NOT") {
			i++
		}
		if s.at(i).is("MATERIALIZED") {
			i++
		}
		if s.at(i).Text != "(" {
			return false
		}
		i = s.match(i) + 1
		if s.at(i).Text != "," {
			s.lo = i
			return true
		}
		i++
	}
}

// at is the token at i, or a zero token past the body's end.
func (s *statement) at(i int) sig {
	if i < s.lo || i >= s.hi {
		return sig{}
	}
	return s.toks[i]
}

// match returns the index of the parenthesis that closes the one at i;
// significant has checked that there is one.
func (s *statement) match(i int) int {
	for j := i + 1; j < len(s.toks); j++ {
		if s.toks[j].Text == ")" && s.toks[j].depth == s.toks[i].depth {
			return j
		}
	}
	return len(s.toks)
}

// top reports whether the token at i is on the body's top level.
func (s *statement) top(i int) bool { return s.toks[i].depth == s.base }

// text is the statement's text from the token at i to the end of the
// token at j-1, comments between them included.
func (s *statement) text(i, j int) string { return s.sql[s.toks[i].at:s.toks[j-1].end()] }

// split cuts the tokens [from, to) at their top-level commas.
func (s *statement) split(from, to int) [][2]int {
	var out [][2]int
	start := from
	for i := from; i < to; i++ {
		if s.top(i) && s.toks[i].Text == "," {
			out = append(out, [2]int{start, i})
			start = i + 1
		}
	}
	return append(out, [2]int{start, to})
}
