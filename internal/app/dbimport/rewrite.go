package dbimport

import (
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// Rewrite rules, as the report names them.
const (
	RuleDoubleQuotedString = `"..." string -> '...'`
	RuleQuotedIdentifier   = "quoted identifier lower-cased"
	RuleLike               = "LIKE -> ILIKE (SQLite's LIKE ignores case)"
	RuleIfNull             = "IFNULL -> COALESCE"
	RuleInstr              = "INSTR -> STRPOS"
	RuleTextVsNumber       = "number compared with a text column quoted"
	RuleMixedJoin          = "text column compared with a number column: number cast to text"
	RuleMixedOrder         = "text column ordered against a number column: text cast to a number"
	RuleGroupBy            = "column neither grouped nor aggregated wrapped in MIN()"
)

// Rewrite turns one SQLite gold into PostgreSQL's dialect for the
// database s describes, and names the rules it applied (none: the gold
// is kept as written). It works on tokens, not on a parse tree: each rule
// is a local change, and the import keeps a rewrite only once its rows
// are verified against SQLite's.
func Rewrite(sql string, s *Schema) (string, []string) {
	r := newRewriter(sql, s, pgDialect)
	r.words()
	r.structure()
	r.comparisons()
	return r.text(), r.applied()
}

// rewriter holds one statement's tokens while rules edit them.
type rewriter struct {
	toks    []sqltext.Token // Text is edited in place
	sig     []int           // indexes of the tokens that are not space or comments
	s       *Schema
	aliases map[string][]string // table or alias (lower case) -> tables
	tables  []string            // every table the statement names
	scope   []int               // per significant token, its query's scope
	parent  map[int]int         // scope -> the scope enclosing it
	scoped  map[int][]string    // scope -> the tables its FROM names
	rules   []string
	d       *dialect // the target's spelling of casts, names and words
}

// dialect is what the rules write differently for each target.
type dialect struct {
	// quoteIdent quotes a (lower-cased) name.
	quoteIdent func(string) string
	// double is the type a text is cast to where a number is wanted.
	double string
	// textBefore and textAfter wrap a number read as text.
	textBefore, textAfter string
	// word applies the target's own rules to the word at k.
	word func(r *rewriter, k int, t *sqltext.Token)
}

// pgDialect is PostgreSQL's dialect.
var pgDialect = &dialect{quoteIdent: quotePG, double: "double precision", textAfter: "::text", word: (*rewriter).pgWord}

func newRewriter(sql string, s *Schema, d *dialect) *rewriter {
	r := &rewriter{toks: sqltext.Tokens(sql), s: s, aliases: map[string][]string{}, d: d}
	for i, t := range r.toks {
		if t.Kind != sqltext.Space && t.Kind != sqltext.Comment {
			r.sig = append(r.sig, i)
		}
	}
	r.scopes()
	r.collectTables()
	return r
}

// scopes gives each significant token its scope: the position of the
// parenthesis opening the subquery it is in, or -1 at the top.
func (r *rewriter) scopes() {
	r.scope = make([]int, len(r.sig))
	r.parent = map[int]int{}
	r.scoped = map[int][]string{}
	stack := []int{-1}
	for k := range r.sig {
		switch r.tok(k).Text {
		case "(":
			inner := stack[len(stack)-1]
			if r.is(k+1, "select") {
				r.parent[k] = inner
				inner = k
			}
			stack = append(stack, inner)
		case ")":
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		}
		r.scope[k] = stack[len(stack)-1]
	}
}

// tablesFor is the tables an unqualified column at significant token k
// can come from: those of the innermost query around it that has the
// column, else every table of the statement.
func (r *rewriter) tablesFor(k int, col string) []string {
	for sc := r.scope[k]; ; sc = r.parent[sc] {
		for _, t := range r.scoped[sc] {
			if _, ok := r.s.Tables[t][col]; ok {
				return r.scoped[sc]
			}
		}
		if sc == -1 {
			return r.tables
		}
	}
}

// tok is the k-th significant token, or a zero token out of range.
func (r *rewriter) tok(k int) *sqltext.Token {
	if k < 0 || k >= len(r.sig) {
		return &sqltext.Token{}
	}
	return &r.toks[r.sig[k]]
}

// is reports whether the k-th significant token is the word w (any case).
func (r *rewriter) is(k int, w string) bool {
	t := r.tok(k)
	return t.Kind == sqltext.Word && strings.EqualFold(t.Text, w)
}

func (r *rewriter) apply(rule string) {
	if !slices.Contains(r.rules, rule) {
		r.rules = append(r.rules, rule)
	}
}

func (r *rewriter) applied() []string { return r.rules }

func (r *rewriter) text() string {
	var b strings.Builder
	for _, t := range r.toks {
		b.WriteString(t.Text)
	}
	return b.String()
}

// collectTables finds the tables after FROM, JOIN and the commas of a
// FROM list, with their aliases.
func (r *rewriter) collectTables() {
	for k := 0; k < len(r.sig); k++ {
		if !r.is(k, "from") && !r.is(k, "join") {
			continue
		}
		for k++; ; k++ {
			name := identName(r.tok(k))
			if _, ok := r.s.Tables[name]; !ok {
				break
			}
			r.addTable(name, name)
			if !slices.Contains(r.scoped[r.scope[k]], name) {
				r.scoped[r.scope[k]] = append(r.scoped[r.scope[k]], name)
			}
			next := k + 1
			if r.is(next, "as") {
				next++
			}
			if a := r.tok(next); a.Kind == sqltext.Word && !isKeyword(a.Text) || a.Kind == sqltext.Ident {
				r.addTable(identName(a), name)
				k = next
			}
			if r.tok(k+1).Text != "," {
				break
			}
			k++
		}
	}
}

func (r *rewriter) addTable(alias, table string) {
	if !slices.Contains(r.aliases[alias], table) {
		r.aliases[alias] = append(r.aliases[alias], table)
	}
	if !slices.Contains(r.tables, table) {
		r.tables = append(r.tables, table)
	}
}

// identName is the lower-case name a word or quoted identifier token
// stands for; "" for any other token.
func identName(t *sqltext.Token) string {
	switch t.Kind {
	case sqltext.Word:
		return strings.ToLower(t.Text)
	case sqltext.Ident:
		return strings.ToLower(unquote(t.Text))
	}
	return ""
}

// unquote strips an identifier's quotes, undoing doubled quote marks.
func unquote(s string) string {
	if len(s) < 2 {
		return s
	}
	switch s[0] {
	case '"':
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	case '`':
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	case '[':
		return s[1 : len(s)-1]
	}
	return s
}

// sqlString is s as a PostgreSQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
