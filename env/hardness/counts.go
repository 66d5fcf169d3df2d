package hardness

// query holds what the evaluator's counts read of one parsed SELECT
// (process_sql.py's sql dict).
type query struct {
	selectAggs []bool // one per SELECT item: does it start with an aggregate
	tables     int    // FROM's table units (tables and subqueries)
	from       condition
	where      condition
	groupBy    []bool // one per GROUP BY column: aggregated
	orderBy    bool   // has ORDER BY
	orderAggs  []bool // ORDER BY's column units (one or two per item): aggregated
	having     condition
	limit      bool
	compound   *query // the right side of INTERSECT, UNION or EXCEPT
}

// condition is a list of condition units joined by AND or OR.
type condition struct {
	units []unit
	ors   int // connectors that are OR
}

// unit is one condition unit.
type unit struct {
	not    bool // NOT before the operator (NOT IN, NOT LIKE, ...)
	like   bool
	nested int // values that are a subquery
}

// connectors is the number of AND/OR between the units.
func (c condition) connectors() int { return max(len(c.units)-1, 0) }

// component1 is count_component1: WHERE, GROUP BY, ORDER BY, LIMIT, each
// join, each OR and each LIKE.
func (q *query) component1() int {
	n := count(len(q.where.units) > 0) + count(len(q.groupBy) > 0) + count(q.orderBy) + count(q.limit)
	n += max(q.tables-1, 0)
	for _, c := range []condition{q.from, q.where, q.having} {
		n += c.ors
		for _, u := range c.units {
			n += count(u.like)
		}
	}
	return n
}

// component2 is count_component2: the subqueries in conditions (of
// FROM's ON, WHERE and HAVING) and the compound's right side.
func (q *query) component2() int {
	n := count(q.compound != nil)
	for _, c := range []condition{q.from, q.where, q.having} {
		for _, u := range c.units {
			n += u.nested
		}
	}
	return n
}

// others is count_others, quirks kept: count_agg reads a WHERE or
// HAVING condition unit's first field, which is its NOT flag, and a
// HAVING connector (the string 'and' or 'or') as aggregated.
func (q *query) others() int {
	aggs := trues(q.selectAggs) + trues(q.groupBy) + trues(q.orderAggs)
	for _, u := range q.where.units {
		aggs += count(u.not)
	}
	for _, u := range q.having.units {
		aggs += count(u.not)
	}
	aggs += q.having.connectors()
	n := count(aggs > 1) + count(len(q.selectAggs) > 1)
	n += count(len(q.where.units)+q.where.connectors() > 1) // len(sql['where']) counts the connectors
	n += count(len(q.groupBy) > 1)
	return n
}

func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

func trues(bs []bool) int {
	n := 0
	for _, b := range bs {
		n += count(b)
	}
	return n
}
