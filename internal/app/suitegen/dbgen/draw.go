package dbgen

import "slices"

// softOwnShare is the share of a child's values drawn from its own pool,
// not its parent's rows, when the source itself breaks an inferred key.
const softOwnShare = 0.15

// draw draws one row of table ti: the columns its keys give from parent
// rows first, then the others from their pools, then those that follow a
// key to the table itself (they may name the row's own key). A later try
// (attempt > 0) of a row whose key was taken draws key columns anew.
func (g *generation) draw(ti, attempt int) ([]any, bool) {
	t := g.p.s.tables[ti]
	row, set := make([]any, len(t.columns)), make([]bool, len(t.columns))
	for _, fk := range g.p.sources[ti] {
		if fk.parent != ti && !g.follow(fk, row, set, g.rows[fk.parent]) {
			return nil, false
		}
	}
	for ci := range t.columns {
		if !set[ci] && !g.selfRef(ti, ci) {
			row[ci], set[ci] = g.value(ti, ci, attempt), true
		}
	}
	for _, fk := range g.p.sources[ti] {
		if fk.parent == ti && !g.follow(fk, row, set, append(g.rows[ti][:len(g.rows[ti]):len(g.rows[ti])], row)) {
			return nil, false
		}
	}
	for ci := range t.columns {
		if !set[ci] {
			row[ci] = g.value(ti, ci, attempt)
		}
	}
	return row, true
}

// selfRef reports whether column ci follows a key to its own table.
func (g *generation) selfRef(ti, ci int) bool {
	return slices.ContainsFunc(g.p.sources[ti], func(fk *foreignKey) bool {
		return fk.parent == ti && slices.Contains(fk.cols, ci)
	})
}

// follow sets the columns of key fk from one of parents, a row that
// agrees with the columns of it already set; or NULL, when the NULL rule
// draws it for all of them. In goldShare of the rows it looks first for
// a parent whose values the golds compare the child's columns with (a
// count of flights from "APG" needs flights from APG, not only an
// airport). A key the source itself breaks leaves its columns to their
// pools now and then. It reports false when no parent row fits.
func (g *generation) follow(fk *foreignKey, row []any, set []bool, parents [][]any) bool {
	if g.nullable(fk) && g.rng.Float64() < g.p.s.tables[fk.child].columns[fk.cols[0]].nullP {
		g.setNull(fk, row, set)
		return true
	}
	if !fk.strict && (len(parents) == 0 || g.rng.Float64() < softOwnShare) {
		return true
	}
	if len(parents) == 0 {
		return false
	}
	gold := g.rng.Float64() < goldShare && g.p.goldKey(fk)
	return gold && g.followFrom(fk, row, set, parents, true) || g.followFrom(fk, row, set, parents, false)
}

// followFrom sets fk's columns from the first parent row that fits, from
// a random start, and (gold) holds a gold value of a child column.
func (g *generation) followFrom(fk *foreignKey, row []any, set []bool, parents [][]any, gold bool) bool {
	start := g.rng.IntN(len(parents))
	for k := range parents {
		vals, ok := g.fits(fk, parents[(start+k)%len(parents)], row, set)
		if ok && (!gold || g.p.anyGold(fk, vals)) {
			for i, c := range fk.cols {
				row[c], set[c] = vals[i], true
			}
			return true
		}
	}
	return false
}

// fits returns the values parent gives fk's columns, typed for them, and
// whether they agree with those already set and keep NULLs where the
// NULL rule allows them.
func (g *generation) fits(fk *foreignKey, parent, row []any, set []bool) ([]any, bool) {
	child := g.p.s.tables[fk.child]
	vals := make([]any, len(fk.cols))
	for i, c := range fk.cols {
		v := parent[fk.parentCols[i]]
		if v == nil && child.columns[c].nullP == 0 {
			return nil, false
		}
		if cv, ok := child.columns[c].convert(v); ok {
			v = cv
		}
		if set[c] && (v == nil) != (row[c] == nil) || set[c] && v != nil && valueKey(v) != valueKey(row[c]) {
			return nil, false
		}
		vals[i] = v
	}
	return vals, true
}

// nullable reports whether the NULL rule lets every column of fk be NULL.
func (g *generation) nullable(fk *foreignKey) bool {
	for _, c := range fk.cols {
		if g.p.s.tables[fk.child].columns[c].nullP == 0 {
			return false
		}
	}
	return true
}

// setNull sets fk's columns not yet set to NULL.
func (g *generation) setNull(fk *foreignKey, row []any, set []bool) {
	for _, c := range fk.cols {
		if !set[c] {
			row[c], set[c] = nil, true
		}
	}
}

// value draws a value of column ci from its pool: NULL by the NULL rule;
// a new value in the column's fresh share, or when the pool gives none;
// a gold entry in goldShare of the draws, when the database has any;
// else any of the database's entries. A key column on a later try of its
// row gets a new value from a wider range.
func (g *generation) value(ti, ci, attempt int) any {
	c := g.p.s.tables[ti].columns[ci]
	if c.nullP > 0 && g.rng.Float64() < c.nullP {
		return nil
	}
	if attempt > 0 && g.p.s.tables[ti].inKey(ci) {
		return g.freshValue(c, true)
	}
	fresh := g.fresh[ti][ci]
	if g.rng.Float64() < g.freshP[ti][ci] {
		return fresh[g.rng.IntN(len(fresh))]
	}
	list := g.active[c.pool]
	if gold := g.golden[c.pool]; len(gold) > 0 && g.rng.Float64() < goldShare {
		list = gold
	}
	for range 4 {
		if len(list) == 0 {
			break
		}
		if v := c.values[list[g.rng.IntN(len(list))]]; v != nil {
			return v
		}
	}
	return fresh[g.rng.IntN(len(fresh))]
}
