package hardness

import (
	"fmt"
)

// The keyword sets of process_sql.py.
var (
	clauseKeywords = set("select", "from", "where", "group", "order", "limit", "intersect", "union", "except")
	joinKeywords   = set("join", "on", "as")
	whereOps       = set("not", "between", "=", ">", "<", ">=", "<=", "!=", "in", "like", "is", "exists")
	unitOps        = set("-", "+", "*", "/")
	aggOps         = set("max", "min", "count", "sum", "avg")
	sqlOps         = set("intersect", "union", "except")
	orderOps       = set("asc", "desc")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// maxDepth bounds the nesting of subqueries and compounds.
const maxDepth = 64

// parser reads the tokens of one statement the way process_sql.py's
// parse_* functions do; each method takes the index to start at and
// returns the index after what it read.
type parser struct {
	toks  []string
	depth int
}

// parse reads sql into the facts the counts need (process_sql.get_sql).
// Tokens after the statement are ignored, as the evaluator ignores them.
func parse(sql string) (*query, error) {
	p := &parser{toks: tokens(sql)}
	_, q, err := p.sql(0)
	return q, err
}

// tok is the token at i, or "" past the end.
func (p *parser) tok(i int) string {
	if i < len(p.toks) {
		return p.toks[i]
	}
	return ""
}

// expect checks that the token at i is want.
func (p *parser) expect(i int, want string) error {
	if got := p.tok(i); got != want {
		return p.unexpected(i, fmt.Sprintf("%q", want))
	}
	return nil
}

// unexpected is the error for the token at i where want was expected.
func (p *parser) unexpected(i int, want string) error {
	if i >= len(p.toks) {
		return fmt.Errorf("hardness: the query ends where %s was expected", want)
	}
	return fmt.Errorf("hardness: %s expected at token %d (%q)", want, i+1, p.toks[i])
}

// ends reports whether the token at i ends a clause's list.
func (p *parser) ends(i int) bool {
	t := p.tok(i)
	return clauseKeywords[t] || t == ")" || t == ";"
}

// sql is parse_sql: FROM first (for its tables), then SELECT, WHERE,
// GROUP BY, HAVING, ORDER BY, LIMIT and a compound's right side.
func (p *parser) sql(start int) (int, *query, error) {
	if p.depth++; p.depth > maxDepth {
		return 0, nil, fmt.Errorf("hardness: subqueries nested deeper than %d", maxDepth)
	}
	defer func() { p.depth-- }()
	q := &query{}
	idx := start
	block := p.tok(idx) == "("
	if block {
		idx++
	}
	fromEnd, err := p.from(start, q)
	if err != nil {
		return 0, nil, err
	}
	if err := p.selectList(idx, q); err != nil {
		return 0, nil, err
	}
	if idx, err = p.clauses(fromEnd, q); err != nil {
		return 0, nil, err
	}
	idx = p.skipSemicolons(idx)
	if block {
		if err := p.expect(idx, ")"); err != nil {
			return 0, nil, err
		}
		idx++
	}
	idx = p.skipSemicolons(idx)
	if sqlOps[p.tok(idx)] {
		if idx, q.compound, err = p.sql(idx + 1); err != nil {
			return 0, nil, err
		}
	}
	return idx, q, nil
}

// clauses reads WHERE, GROUP BY, HAVING, ORDER BY and LIMIT from idx.
func (p *parser) clauses(idx int, q *query) (int, error) {
	var err error
	if p.tok(idx) == "where" {
		if idx, q.where, err = p.condition(idx + 1); err != nil {
			return 0, err
		}
	}
	if idx, err = p.groupBy(idx, q); err != nil {
		return 0, err
	}
	if p.tok(idx) == "having" {
		if idx, q.having, err = p.condition(idx + 1); err != nil {
			return 0, err
		}
	}
	if idx, err = p.orderBy(idx, q); err != nil {
		return 0, err
	}
	if p.tok(idx) == "limit" {
		if idx+1 >= len(p.toks) {
			return 0, p.unexpected(idx+1, "LIMIT's count")
		}
		q.limit = true
		idx += 2
	}
	return idx, nil
}

func (p *parser) skipSemicolons(idx int) int {
	for p.tok(idx) == ";" {
		idx++
	}
	return idx
}

// selectList is parse_select: one entry per item, aggregated when the
// item starts with an aggregate function.
func (p *parser) selectList(idx int, q *query) error {
	if err := p.expect(idx, "select"); err != nil {
		return err
	}
	idx++
	if p.tok(idx) == "distinct" {
		idx++
	}
	for idx < len(p.toks) && !clauseKeywords[p.toks[idx]] {
		agg := aggOps[p.toks[idx]]
		if agg {
			idx++
		}
		var err error
		if idx, _, err = p.valUnit(idx); err != nil {
			return err
		}
		q.selectAggs = append(q.selectAggs, agg)
		if p.tok(idx) == "," {
			idx++
		}
	}
	return nil
}

// from is parse_from: it starts at the first FROM at or after start and
// reads table units (tables, JOINs, subqueries) and their ON conditions.
func (p *parser) from(start int, q *query) (int, error) {
	idx := start
	for idx < len(p.toks) && p.toks[idx] != "from" {
		idx++
	}
	if idx == len(p.toks) {
		return 0, fmt.Errorf("hardness: no FROM clause")
	}
	idx++
	for idx < len(p.toks) {
		block := p.toks[idx] == "("
		if block {
			idx++
		}
		var err error
		if p.tok(idx) == "select" {
			idx, _, err = p.sql(idx)
		} else {
			if p.tok(idx) == "join" {
				idx++
			}
			idx, err = p.tableUnit(idx)
		}
		if err != nil {
			return 0, err
		}
		q.tables++
		if p.tok(idx) == "on" {
			var c condition
			if idx, c, err = p.condition(idx + 1); err != nil {
				return 0, err
			}
			q.from.units = append(q.from.units, c.units...) // ON clauses are joined by AND
			q.from.ors += c.ors
		}
		if block {
			if err := p.expect(idx, ")"); err != nil {
				return 0, err
			}
			idx++
		}
		if p.ends(idx) {
			break
		}
	}
	return idx, nil
}

// tableUnit is parse_table_unit: a table name, with "AS alias" after it.
func (p *parser) tableUnit(idx int) (int, error) {
	if !isName(p.tok(idx)) || joinKeywords[p.tok(idx)] {
		return 0, p.unexpected(idx, "a table")
	}
	if p.tok(idx+1) == "as" {
		return idx + 3, nil
	}
	return idx + 1, nil
}
