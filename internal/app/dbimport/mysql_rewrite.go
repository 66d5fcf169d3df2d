package dbimport

import (
	"strings"

	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/sqltext"
)

// MySQL's rewrite rules, as the report names them.
const (
	RuleMySQLName      = "table name or alias lower-cased (MySQL compares table names and aliases by case)"
	RuleMySQLLike      = "LIKE pattern given a case-insensitive collation (SQLite's LIKE ignores case)"
	RuleMySQLBackslash = "backslash in a string doubled (MySQL reads it as an escape)"
	RuleMySQLLength    = "LENGTH -> CHAR_LENGTH (MySQL's LENGTH counts bytes)"
	RuleMySQLCast      = "CAST type -> MySQL's (SIGNED, DOUBLE, CHAR)"
	RuleMySQLDiv       = "integer / integer -> DIV (SQLite divides integers as integers)"
	RuleMySQLConcat    = "a || b -> CONCAT(a, b) (|| is OR in MySQL)"
	RuleMySQLReserved  = "name that is a MySQL keyword quoted"
	RuleMySQLCallSpace = "space between a function's name and ( dropped (MySQL reads COUNT (*) as a name)"
)

// likeCollation is the collation a LIKE pattern is given: the columns
// compare bytes (utf8mb4_bin), SQLite's LIKE ignores case.
const likeCollation = " COLLATE utf8mb4_general_ci"

// mysqlDialect is MySQL's and MariaDB's dialect, as env/mysql's sessions
// read it (ANSI_QUOTES: "..." names a column).
var mysqlDialect = &dialect{quoteIdent: mysql.QuoteIdent, double: "DOUBLE",
	textBefore: "CAST(", textAfter: " AS CHAR)", word: (*rewriter).mysqlWord}

// mysqlCasts are SQLite's type names in a CAST and MySQL's for them.
var mysqlCasts = map[string]string{"int": "SIGNED", "integer": "SIGNED", "bigint": "SIGNED",
	"real": "DOUBLE", "float": "DOUBLE", "double": "DOUBLE", "numeric": "DOUBLE",
	"text": "CHAR", "varchar": "CHAR"}

// RewriteMySQL turns one SQLite gold into MySQL's dialect for the
// database s describes (tables named in lower case), and names the rules
// it applied; see Rewrite.
func RewriteMySQL(sql string, s *Schema) (string, []string) {
	r := newRewriter(sql, s, mysqlDialect)
	r.words()
	r.structure()
	r.comparisons()
	r.mysqlOperators()
	return r.text(), r.applied()
}

// mysqlWord applies MySQL's word rules at significant token k.
func (r *rewriter) mysqlWord(k int, t *sqltext.Token) {
	lower := strings.ToLower(t.Text)
	switch {
	case t.Kind == sqltext.String && strings.Contains(t.Text, `\`):
		t.Text = strings.ReplaceAll(t.Text, `\`, `\\`)
		r.apply(RuleMySQLBackslash)
	case t.Kind != sqltext.Word:
	case r.is(k, "length") && r.tok(k+1).Text == "(":
		t.Text = "CHAR_LENGTH"
		r.apply(RuleMySQLLength)
	case aggregates[lower] && r.tok(k+1).Text == "(" && r.sig[k+1] != r.sig[k]+1:
		for i := r.sig[k] + 1; i < r.sig[k+1]; i++ {
			r.toks[i].Text = ""
		}
		r.apply(RuleMySQLCallSpace)
	case r.is(k-1, "as") && mysqlCasts[lower] != "" && r.tok(k+1).Text == ")":
		t.Text = mysqlCasts[lower]
		r.apply(RuleMySQLCast)
	case r.s.Reserved[lower] && r.tok(k+1).Text != "(" && !clauseWord(lower):
		t.Text = mysql.QuoteIdent(lower)
		r.apply(RuleMySQLReserved)
	case t.Text != lower && (r.s.Tables[lower] != nil || r.aliases[lower] != nil) && r.tok(k+1).Text != "(":
		t.Text = lower
		r.apply(RuleMySQLName)
	}
}

// clauseWords are words a SQLite gold uses bare only as keywords (a name
// spelled so would be quoted there, an Ident token): a table or column
// of that name is not what the bare word means.
var clauseWords = map[string]bool{"by": true, "desc": true, "asc": true, "distinct": true, "case": true,
	"when": true, "then": true, "else": true, "end": true, "is": true, "null": true, "in": true,
	"between": true, "exists": true, "like": true, "offset": true, "all": true, "cast": true}

// clauseWord reports whether w is a keyword of a query's clauses.
func clauseWord(w string) bool { return clauseWords[w] || keywords[w] || clauses[w] }

// mysqlOperators rewrites the operators MySQL reads otherwise: / between
// integers, || between single-token operands, and LIKE of a string
// (after words, which turns "..." strings into '...').
func (r *rewriter) mysqlOperators() {
	for k := 0; k < len(r.sig); k++ {
		switch {
		case r.is(k, "like") && r.tok(k+1).Kind == sqltext.String:
			r.tok(k + 1).Text += likeCollation
			r.apply(RuleMySQLLike)
		case r.tok(k).Text == "/" && r.integerBefore(k-1) && r.integerAfter(k+1):
			r.tok(k).Text = "DIV"
			r.apply(RuleMySQLDiv)
		case r.tok(k).Text == "|" && r.tok(k+1).Text == "|":
			k = r.concat(k)
		}
	}
}

// integerBefore reports whether the operand ending at significant token
// k is an integer: an integer column or literal, or a call integerCall
// accepts.
func (r *rewriter) integerBefore(k int) bool {
	if r.tok(k).Text != ")" {
		return r.integer(r.operandBefore(k))
	}
	depth := 0
	for open := k; open >= 0; open-- {
		switch r.tok(open).Text {
		case ")":
			depth++
		case "(":
			if depth--; depth == 0 {
				return r.integerCall(open-1, k)
			}
		}
	}
	return false
}

// integerAfter is integerBefore of the operand starting at k.
func (r *rewriter) integerAfter(k int) bool {
	if r.tok(k).Kind == sqltext.Word && r.tok(k+1).Text == "(" {
		return r.integerCall(k, r.closing(k+1))
	}
	return r.integer(r.operandAfter(k))
}

// integerCall reports whether the call from its name at fn to its
// closing parenthesis at end gives an integer: COUNT, or SUM, MIN, MAX
// or ABS of an integer column (SQLite's SUM of integers is an integer).
func (r *rewriter) integerCall(fn, end int) bool {
	if r.is(fn, "count") {
		return true
	}
	if !r.is(fn, "sum") && !r.is(fn, "min") && !r.is(fn, "max") && !r.is(fn, "abs") {
		return false
	}
	o := r.operandAfter(fn + 2)
	return o.last == end-1 && r.integer(o)
}

// integer reports whether o is an integer column or literal.
func (r *rewriter) integer(o operand) bool {
	if o.number {
		return !strings.ContainsAny(r.tok(o.first).Text, ".eE")
	}
	return o.typ == TypeBigint
}

// concat rewrites the chain a || b || ... whose first || is at k, when
// every operand is one token, into CONCAT(a, b, ...); it returns the
// last significant token it looked at.
func (r *rewriter) concat(k int) int {
	first := k - 1
	if !single(r.tok(first)) || r.tok(first-1).Text == "." {
		return k + 1
	}
	last := k
	for r.tok(last).Text == "|" && r.tok(last+1).Text == "|" && single(r.tok(last+2)) && r.tok(last+3).Text != "." {
		last += 3
	}
	if last == k {
		return k + 1
	}
	last--
	r.tok(first).Text = "CONCAT(" + r.tok(first).Text
	for i := first + 1; i < last; i += 3 {
		r.tok(i).Text, r.tok(i+1).Text = ",", ""
	}
	r.tok(last).Text += ")"
	r.apply(RuleMySQLConcat)
	return last
}

// single reports whether t can be an operand by itself.
func single(t *sqltext.Token) bool {
	switch t.Kind {
	case sqltext.String, sqltext.Number, sqltext.Ident:
		return true
	case sqltext.Word:
		return !isKeyword(t.Text)
	}
	return false
}
