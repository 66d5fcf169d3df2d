package sqltext

import "strings"

// item is one entry of a select list.
type item struct {
	from, to int    // the expression's tokens, without its alias
	alias    string // the alias's name key (see nameKey), "" when none
	name     string // the output column's name key: the alias, else the name of the column a column reference reads
	star     bool   // * or t.*: columns of unknown number
	norm     string // the expression normalized, to compare with an ORDER BY term
}

// modifiers are the words that may come between SELECT and its list.
var modifiers = []string{"ALL", "DISTINCT", "DISTINCTROW", "HIGH_PRIORITY", "STRAIGHT_JOIN",
	"SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS"}

// listEnds are the keywords that end a select list on its top level.
var listEnds = []string{"FROM", "INTO", "WHERE", "GROUP", "HAVING", "WINDOW", "ORDER", "LIMIT", "OFFSET",
	"FETCH", "UNION", "INTERSECT", "EXCEPT", "MINUS"}

// OutputCount returns the number of columns sql returns, counted from
// its top-level select list (the first arm's, in a compound select). It
// reports false when the list holds a * (whose columns the text cannot
// count) or sql cannot be read (see TopOrder).
func OutputCount(sql string) (int, bool) {
	s, ok := read(sql)
	if !ok || s.selectAt < 0 {
		return 0, false
	}
	for _, it := range s.items {
		if it.star {
			return 0, false
		}
	}
	return len(s.items), true
}

// readList reads the leading SELECT's modifiers and list, when the body
// opens with SELECT.
func (s *statement) readList() bool {
	if s.selectAt < 0 {
		return true
	}
	i := s.selectAt + 1
	for ; s.at(i).is(modifiers...); i++ {
		s.distinct = s.distinct || s.at(i).is("DISTINCT", "DISTINCTROW")
		if s.at(i).is("DISTINCT") && s.at(i+1).is("ON") && s.at(i+2).Text == "(" {
			s.distinctOn, i = true, s.match(i+2)
		}
	}
	s.listFrom = i
	for i < s.hi && !s.clause(i) {
		i++
	}
	if i == s.listFrom {
		return false
	}
	for _, span := range s.split(s.listFrom, i) {
		it, ok := s.readItem(span[0], span[1])
		if !ok {
			return false
		}
		s.items = append(s.items, it)
	}
	return true
}

// clause reports whether the token at i opens a clause that ends a select
// list: one of listEnds on the top level, but not the FROM of IS [NOT]
// DISTINCT FROM.
func (s *statement) clause(i int) bool {
	t := s.toks[i]
	return s.top(i) && t.is(listEnds...) && !(t.is("FROM") && s.at(i-1).is("DISTINCT"))
}

// readItem reads the select-list entry in tokens [from, to): expression
// [[AS] alias], * or name.*.
func (s *statement) readItem(from, to int) (item, bool) {
	if from == to {
		return item{}, false
	}
	it := item{from: from, to: to}
	last := s.toks[to-1]
	switch {
	case last.Text == "*" && (to-from == 1 || s.toks[to-2].Text == "."):
		it.star = true
		return it, true
	case to-from > 2 && s.toks[to-2].is("AS"):
		it.to -= 2
	case to-from > 1 && s.implicitAlias(to):
		it.to--
	}
	if it.to < to {
		it.alias, _ = nameKey(last)
	}
	it.name = it.alias
	if it.alias == "" {
		it.name = s.columnName(from, to)
	}
	it.norm = Normalize(s.text(it.from, it.to))
	return it, true
}

// aliasless are the words that end an expression and so are no alias.
var aliasless = []string{"END", "NULL", "TRUE", "FALSE", "CURRENT_DATE", "CURRENT_TIME",
	"CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "ASC", "DESC"}

// operators are the words after which a name is an operand, not an alias.
var operators = []string{"NOT", "IS", "AND", "OR", "LIKE", "ILIKE", "GLOB", "REGEXP", "MATCH", "IN",
	"BETWEEN", "ESCAPE", "CASE", "WHEN", "THEN", "ELSE", "COLLATE", "AS", "EXISTS", "INTERVAL",
	"DISTINCT", "ALL", "BINARY", "SELECT"}

// implicitAlias reports whether the item ending before to ends with an
// alias written without AS: a name after an operand.
func (s *statement) implicitAlias(to int) bool {
	last, prev := s.toks[to-1], s.toks[to-2]
	if last.Kind != Ident && (last.Kind != Word || last.is(aliasless...)) {
		return false
	}
	switch prev.Kind {
	case Word:
		return !prev.is(operators...)
	case Ident, Number, String:
		return true
	}
	return prev.Text == ")"
}

// columnName is the name key of the column a column reference (name,
// t.name, s.t.name) in tokens [from, to) reads, "" for any other
// expression.
func (s *statement) columnName(from, to int) string {
	if !s.dotted(from, to, func(t sig) bool { return t.Kind == Word || t.Kind == Ident }) {
		return ""
	}
	key, _ := nameKey(s.toks[to-1])
	return key
}

// nameKey is how a name compares with another: a bare word in lower case
// (SQL folds it), a quoted identifier or string as written between its
// quotes. It reports false, with "", for any other token.
func nameKey(t sig) (string, bool) {
	switch t.Kind {
	case Word:
		return strings.ToLower(t.Text), true
	case Ident, String:
		return unquote(t.Text), true
	}
	return "", false
}

// unquote removes a quoted name's quotes and undoes its doubled quotes.
func unquote(text string) string {
	if len(text) < 2 {
		return text
	}
	q, inner := text[:1], text[1:len(text)-1]
	if q == "[" {
		return inner
	}
	if q == "E" || q == "e" {
		return text // E'...' holds escapes: compared as written
	}
	return strings.ReplaceAll(inner, q+q, q)
}
