package dbgen

// pool is the values a column draws from, shared by the columns the golds
// join where neither side is a key (and those of a key broken by a
// cycle), so that their joins match.
type pool struct {
	members []colRef
	entries []any  // the values, each typed by the member that brought it
	gold    []bool // per entry: a gold literal or one of its perturbations
	key     bool   // a member is a key of its table by itself: its values must not repeat
}

// buildPools joins the columns that share a pool, then fills each pool
// with its members' samples and seeds, and gives each member its values.
func (p *Plan) buildPools() {
	base := make([]int, len(p.s.tables)+1)
	for i, t := range p.s.tables {
		base[i+1] = base[i] + len(t.columns)
	}
	sets := newUnion(base[len(p.s.tables)])
	for _, fk := range p.keys {
		if fk.origin == fkShared || fk.cycle {
			for i, c := range fk.cols {
				sets.join(base[fk.child]+c, base[fk.parent]+fk.parentCols[i])
			}
		}
	}
	byRoot := map[int]int{}
	for ti, t := range p.s.tables {
		for ci, c := range t.columns {
			root := sets.find(base[ti] + ci)
			if _, ok := byRoot[root]; !ok {
				byRoot[root] = len(p.pools)
				p.pools = append(p.pools, &pool{})
			}
			c.pool = byRoot[root]
			pl := p.pools[c.pool]
			pl.members = append(pl.members, colRef{ti, ci})
			pl.key = pl.key || t.hasKey([]int{ci})
		}
	}
	for _, pl := range p.pools {
		p.fill(pl)
	}
}

// fill gathers a pool's entries and its members' values.
func (p *Plan) fill(pl *pool) {
	at := map[string]int{}
	add := func(v any, gold bool) {
		k := valueKey(v)
		if i, ok := at[k]; ok {
			pl.gold[i] = pl.gold[i] || gold
			return
		}
		at[k] = len(pl.entries)
		pl.entries = append(pl.entries, v)
		pl.gold = append(pl.gold, gold)
	}
	for _, m := range pl.members {
		c := p.s.col(m)
		for _, v := range c.stats.sample {
			add(v, false)
		}
		for _, s := range c.seeds {
			if v, ok := c.typed(s); ok {
				add(v, true)
			}
		}
	}
	for _, m := range pl.members {
		c := p.s.col(m)
		c.gold = map[string]bool{}
		for _, s := range c.seeds {
			if v, ok := c.typed(s); ok {
				c.gold[valueKey(v)] = true
			}
		}
		c.values = make([]any, len(pl.entries))
		for i, v := range pl.entries {
			c.values[i], _ = c.convert(v)
		}
	}
}

// union is a disjoint-set forest over 0..n-1.
type union []int

func newUnion(n int) union {
	u := make(union, n)
	for i := range u {
		u[i] = i
	}
	return u
}

// find returns the root of x's set.
func (u union) find(x int) int {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

// join merges the sets of x and y under the smaller root.
func (u union) join(x, y int) {
	rx, ry := u.find(x), u.find(y)
	u[max(rx, ry)] = min(rx, ry)
}

// goldKey reports whether a gold seeds any child column of fk.
func (p *Plan) goldKey(fk *foreignKey) bool {
	for _, c := range fk.cols {
		if len(p.s.tables[fk.child].columns[c].gold) > 0 {
			return true
		}
	}
	return false
}

// anyGold reports whether one of vals, fk's child columns' values, is a
// gold seed of its column.
func (p *Plan) anyGold(fk *foreignKey, vals []any) bool {
	for i, c := range fk.cols {
		if vals[i] != nil && p.s.tables[fk.child].columns[c].gold[valueKey(vals[i])] {
			return true
		}
	}
	return false
}
