package hardness

import "strings"

// condition is parse_condition: units joined by AND or OR, up to a
// clause keyword, ")", ";" or a join keyword.
func (p *parser) condition(idx int) (int, condition, error) {
	var c condition
	for idx < len(p.toks) {
		var u unit
		var err error
		if idx, _, err = p.valUnit(idx); err != nil {
			return 0, c, err
		}
		if p.tok(idx) == "not" {
			u.not = true
			idx++
		}
		op := p.tok(idx)
		if !whereOps[op] {
			return 0, c, p.unexpected(idx, "a comparison operator")
		}
		idx++
		u.like = op == "like"
		if idx, err = p.value(idx, &u); err != nil {
			return 0, c, err
		}
		if op == "between" {
			if err := p.expect(idx, "and"); err != nil {
				return 0, c, err
			}
			if idx, err = p.value(idx+1, &u); err != nil {
				return 0, c, err
			}
		}
		c.units = append(c.units, u)
		if p.ends(idx) || joinKeywords[p.tok(idx)] {
			break
		}
		switch p.tok(idx) {
		case "or":
			c.ors++
		case "and":
		case "":
			return idx, c, nil
		default:
			return 0, c, p.unexpected(idx, "AND, OR or the end of the condition")
		}
		idx++
	}
	return idx, c, nil
}

// value is parse_value: a subquery (counted in u), a string, a number or
// a column reference.
func (p *parser) value(idx int, u *unit) (int, error) {
	block := p.tok(idx) == "("
	if block {
		idx++
	}
	switch t := p.tok(idx); {
	case t == "select":
		var err error
		if idx, _, err = p.sql(idx); err != nil {
			return 0, err
		}
		u.nested++
	case isValue(t) || isNumber(t):
		idx++
	default:
		end := idx
		for end < len(p.toks) && !p.valueEnds(p.toks[end]) {
			end++
		}
		if end == idx {
			return 0, p.unexpected(idx, "a value")
		}
		idx = end
	}
	if block {
		if err := p.expect(idx, ")"); err != nil {
			return 0, err
		}
		idx++
	}
	return idx, nil
}

// valueEnds reports whether tok ends a column reference used as a value.
func (p *parser) valueEnds(tok string) bool {
	return tok == "," || tok == ")" || tok == "and" || clauseKeywords[tok] || joinKeywords[tok]
}

// valUnit is parse_val_unit: a column unit, or two joined by - + * /.
// It returns the aggregation of each column unit read.
func (p *parser) valUnit(idx int) (int, []bool, error) {
	block := p.tok(idx) == "("
	if block {
		idx++
	}
	idx, agg, err := p.colUnit(idx)
	if err != nil {
		return 0, nil, err
	}
	aggs := []bool{agg}
	if unitOps[p.tok(idx)] {
		if idx, agg, err = p.colUnit(idx + 1); err != nil {
			return 0, nil, err
		}
		aggs = append(aggs, agg)
	}
	if block {
		if err := p.expect(idx, ")"); err != nil {
			return 0, nil, err
		}
		idx++
	}
	return idx, aggs, nil
}

// colUnit is parse_col_unit: a column, aggregated or not, with DISTINCT.
// As in process_sql.py, an aggregate inside parentheses returns before
// the closing one is read.
func (p *parser) colUnit(idx int) (int, bool, error) {
	block := p.tok(idx) == "("
	if block {
		idx++
	}
	if aggOps[p.tok(idx)] {
		if err := p.expect(idx+1, "("); err != nil {
			return 0, false, err
		}
		idx += 2
		if p.tok(idx) == "distinct" {
			idx++
		}
		idx, err := p.column(idx)
		if err != nil {
			return 0, false, err
		}
		if err := p.expect(idx, ")"); err != nil {
			return 0, false, err
		}
		return idx + 1, true, nil
	}
	if p.tok(idx) == "distinct" {
		idx++
	}
	idx, err := p.column(idx)
	if err != nil {
		return 0, false, err
	}
	if block {
		if err := p.expect(idx, ")"); err != nil {
			return 0, false, err
		}
		idx++
	}
	return idx, false, nil
}

// column is parse_col: "*", "alias.column" or a column name.
func (p *parser) column(idx int) (int, error) {
	t := p.tok(idx)
	if t == "*" || isName(t) && !clauseKeywords[t] && !strings.HasSuffix(t, ".") {
		return idx + 1, nil
	}
	return 0, p.unexpected(idx, "a column")
}

// groupBy is parse_group_by: one entry per column, aggregated or not.
func (p *parser) groupBy(idx int, q *query) (int, error) {
	if p.tok(idx) != "group" {
		return idx, nil
	}
	if err := p.expect(idx+1, "by"); err != nil {
		return 0, err
	}
	idx += 2
	for idx < len(p.toks) && !p.ends(idx) {
		var agg bool
		var err error
		if idx, agg, err = p.colUnit(idx); err != nil {
			return 0, err
		}
		q.groupBy = append(q.groupBy, agg)
		if p.tok(idx) != "," {
			break
		}
		idx++
	}
	return idx, nil
}

// orderBy is parse_order_by: the aggregation of every column unit of
// every item.
func (p *parser) orderBy(idx int, q *query) (int, error) {
	if p.tok(idx) != "order" {
		return idx, nil
	}
	if err := p.expect(idx+1, "by"); err != nil {
		return 0, err
	}
	q.orderBy = true
	idx += 2
	for idx < len(p.toks) && !p.ends(idx) {
		var aggs []bool
		var err error
		if idx, aggs, err = p.valUnit(idx); err != nil {
			return 0, err
		}
		q.orderAggs = append(q.orderAggs, aggs...)
		if orderOps[p.tok(idx)] {
			idx++
		}
		if p.tok(idx) != "," {
			break
		}
		idx++
	}
	return idx, nil
}
