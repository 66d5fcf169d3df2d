package dbgen

import "slices"

// seed files each literal with the column it meets: the literal typed for
// the column (for Describe), and the texts it seeds the column's pool
// with. A child's seeds go to its parents too, since its values are
// drawn from theirs.
func (p *Plan) seed(lits []literal) {
	for _, l := range lits {
		c := p.s.col(l.col)
		if v, ok := c.typed(l.text); ok && !slices.ContainsFunc(c.lits, func(x any) bool { return valueKey(x) == valueKey(v) }) {
			c.lits = append(c.lits, v)
		}
		c.seeds = appendNew(c.seeds, literalTexts(c, l)...)
	}
	for range p.keys {
		if !p.propagate() {
			break
		}
	}
}

// propagate adds each child column's seeds to the parent column it draws
// from, and reports whether any were new.
func (p *Plan) propagate() bool {
	grew := false
	for _, fk := range p.keys {
		if fk.origin == fkShared || fk.cycle {
			continue // one pool: the seeds are there already
		}
		for i, cc := range fk.cols {
			child, parent := p.s.tables[fk.child].columns[cc], p.s.tables[fk.parent].columns[fk.parentCols[i]]
			n := len(parent.seeds)
			parent.seeds = appendNew(parent.seeds, child.seeds...)
			grew = grew || len(parent.seeds) > n
		}
	}
	return grew
}

// appendNew appends those of xs that list does not hold yet.
func appendNew(list []string, xs ...string) []string {
	for _, x := range xs {
		if !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

// typed is text as a value the column can hold: in its main class if it
// reads as one, else in another class its source values have; false when
// none fits.
func (c *column) typed(text string) (any, bool) {
	for _, k := range c.classOrder() {
		if v, ok := asClass(text, k); ok && c.storable(v) {
			return v, true
		}
	}
	return nil, false
}

// convert is v as a value the column can hold: itself when its class is
// one of the column's, else its text typed for the column.
func (c *column) convert(v any) (any, bool) {
	if k, ok := classOf(v); ok && c.holds(k) && c.storable(v) {
		return v, true
	}
	return c.typed(valueText(v))
}

// classOrder is the column's main class, then the other classes its
// source values have.
func (c *column) classOrder() []class {
	out := []class{c.stats.primary}
	for k := range numClasses {
		if k != c.stats.primary && c.stats.classes.has(k) {
			out = append(out, k)
		}
	}
	return out
}

// holds reports whether the column's values take class k.
func (c *column) holds(k class) bool {
	return k == c.stats.primary || c.stats.classes.has(k)
}

// storable reports whether the engine keeps v's class in the column: a
// text that reads as a number would become one under a numeric affinity.
func (c *column) storable(v any) bool {
	s, ok := v.(string)
	return !ok || c.aff == affText || c.aff == affBlob || !looksNumeric(s)
}

// valueKey identifies a value across classes: 5, 5.0 and '5' are one.
func valueKey(v any) string { return valueText(v) }
