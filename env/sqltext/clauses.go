package sqltext

// Order is what a statement's top level says of the order and number of
// its rows: its ORDER BY terms and its LIMIT/OFFSET window. The top level
// is the statement's own clauses, after any WITH list, not those of its
// subqueries, common table expressions or window definitions.
type Order struct {
	// Terms are the ORDER BY terms as written, without ASC or DESC, NULLS
	// FIRST or LAST, or a trailing COLLATE; an integer term names an
	// output column by its position.
	Terms []string
	// Desc says, for each term, whether it sorts in descending order.
	Desc []bool
	// Window is the statement's LIMIT/OFFSET window.
	Window Window
	// Compound is set for a UNION, INTERSECT or EXCEPT, whose ORDER BY
	// sorts the rows of the whole compound.
	Compound bool
	// Distinct is set for SELECT DISTINCT (and DISTINCTROW, DISTINCT ON).
	Distinct bool
	// Collate is set when a term holds a COLLATE: under its collation, the
	// key may tie where its values differ.
	Collate bool
}

// TopOrder reads the top-level ORDER BY and window of sql, a SELECT
// statement in SQLite, PostgreSQL or MySQL syntax. It reports false when
// sql is not one SELECT statement or a part of it cannot be read: a window
// other than integer literals (LIMIT, LIMIT ... OFFSET, LIMIT m, n, OFFSET
// alone, LIMIT ALL, FETCH FIRST n ROWS ONLY), FETCH ... WITH TIES, a
// locking clause (FOR UPDATE), an unbalanced parenthesis, an unclosed
// string or comment. The lexical rules are Tokens': MySQL's # comments
// and backslash escapes in '...' strings are not among them.
func TopOrder(sql string) (Order, bool) {
	s, ok := read(sql)
	if !ok {
		return Order{}, false
	}
	o := Order{Window: s.win, Compound: s.compound, Distinct: s.distinct}
	for _, tm := range s.terms {
		o.Terms = append(o.Terms, s.text(tm.from, tm.to))
		o.Desc = append(o.Desc, tm.desc)
		o.Collate = o.Collate || tm.collate
	}
	return o, true
}

// scan walks the body's top level for its compound operators, GROUP BY,
// ORDER BY and window, and reads the ORDER BY terms and the window.
func (s *statement) scan() bool {
	if s.toks[s.lo].is("SELECT") {
		s.selectAt = s.lo
	}
	s.winAt = s.hi
	for i := s.lo; i < s.hi && s.winAt == s.hi; i++ {
		t := s.toks[i]
		switch {
		case !s.top(i) || t.Kind != Word:
		case t.is("UNION", "INTERSECT", "EXCEPT", "MINUS"):
			s.compound = true
			if s.orderAt >= 0 {
				return false // an ORDER BY must follow the last arm
			}
		case t.is("GROUP") && s.at(i+1).is("BY") && !s.compound && s.groupAt < 0:
			s.groupAt = i
		case t.is("ORDER") && s.at(i+1).is("BY"):
			if s.orderAt >= 0 {
				return false
			}
			s.orderAt = i
		case t.is("LIMIT", "OFFSET", "FETCH"):
			s.winAt = i
		case t.is("FOR"):
			return false // a locking clause (FOR UPDATE, FOR SHARE), which ends no ORDER BY here
		}
	}
	if s.compound {
		s.groupAt = -1 // no column is added to a compound, so none of its positions moves
	}
	return s.readTerms() && s.readWindow()
}

// term is one ORDER BY term.
type term struct {
	from, to int  // the expression's tokens, without direction, NULLS or trailing COLLATE
	end      int  // past the term's last token, direction included
	desc     bool // DESC
	collate  bool // a COLLATE anywhere in the term
}

// readTerms reads the ORDER BY terms, which run up to the window.
func (s *statement) readTerms() bool {
	if s.orderAt < 0 {
		return true
	}
	for _, span := range s.split(s.orderAt+2, s.winAt) {
		tm, ok := s.readTerm(span[0], span[1])
		if !ok {
			return false
		}
		s.terms = append(s.terms, tm)
	}
	return true
}

// readTerm reads the term in tokens [from, to): expression [COLLATE name]
// [ASC | DESC] [NULLS FIRST | LAST].
func (s *statement) readTerm(from, to int) (term, bool) {
	tm := term{from: from, to: to, end: to}
	if to-from > 2 && s.toks[to-2].is("NULLS") && s.toks[to-1].is("FIRST", "LAST") {
		tm.to -= 2
	}
	if tm.to > from && s.toks[tm.to-1].is("ASC", "DESC") {
		tm.desc = s.toks[tm.to-1].is("DESC")
		tm.to--
	}
	for i := from; i < tm.to; i++ {
		switch {
		case s.clause(i):
			return term{}, false // no expression holds a clause
		case s.toks[i].is("COLLATE"):
			tm.collate = true
			if s.collationTo(i+1, tm.to) && i > from {
				tm.to = i
			}
		case s.toks[i].is("USING") && s.toks[i].depth == s.toks[from].depth:
			return term{}, false // PostgreSQL's USING operator: no direction to tell
		}
	}
	return tm, tm.to > from
}

// collationTo reports whether tokens [from, to) are a collation's name,
// perhaps qualified: name [. name], a name quoted or not, or a string.
func (s *statement) collationTo(from, to int) bool {
	return s.dotted(from, to, func(t sig) bool { return t.Kind == Word || t.Kind == Ident || t.Kind == String })
}

// dotted reports whether tokens [from, to) are names joined by dots,
// name [. name ...], each name a token that isName accepts.
func (s *statement) dotted(from, to int, isName func(sig) bool) bool {
	for i := from; i < to; i++ {
		if (i-from)%2 == 0 && !isName(s.toks[i]) || (i-from)%2 == 1 && s.toks[i].Text != "." {
			return false
		}
	}
	return to > from && (to-from)%2 == 1
}
