package dbgen

// ordering reports whether fk makes its child wait for its parent's rows:
// a declared or inferred key to another table, not broken by a cycle.
func (fk *foreignKey) ordering() bool {
	return fk.origin != fkShared && !fk.cycle && fk.child != fk.parent
}

// fillOrder orders the tables so that each comes after the tables it
// draws rows from, the earlier in the schema first among those ready. A
// cycle of keys is broken at the table with the fewest parents left
// (the earliest on a tie): its keys from tables not yet filled are marked
// cycle, and draw from their parent's pool instead of its rows.
func (p *Plan) fillOrder() []int {
	n := len(p.s.tables)
	done := make([]bool, n)
	order := make([]int, 0, n)
	for len(order) < n {
		next := -1
		for t := range n {
			if !done[t] && p.waitingOn(t, done) == 0 {
				next = t
				break
			}
		}
		if next < 0 {
			next = p.breakCycle(done)
		}
		done[next] = true
		order = append(order, next)
	}
	return order
}

// waitingOn counts the keys of table t whose parent is not filled yet.
func (p *Plan) waitingOn(t int, done []bool) int {
	n := 0
	for _, fk := range p.keys {
		if fk.child == t && fk.ordering() && !done[fk.parent] {
			n++
		}
	}
	return n
}

// breakCycle picks the table to fill next when every table left waits on
// another, and marks its waiting keys cycle.
func (p *Plan) breakCycle(done []bool) int {
	best, fewest := -1, 0
	for t := range done {
		if w := p.waitingOn(t, done); !done[t] && (best < 0 || w < fewest) {
			best, fewest = t, w
		}
	}
	for _, fk := range p.keys {
		if fk.child == best && fk.ordering() && !done[fk.parent] {
			fk.cycle = true
		}
	}
	return best
}

// collectSources lists, per table, the keys it draws rows from: those
// not broken by a cycle nor shared (a key to its own table included),
// and marks the tables other tables draw rows from.
func (p *Plan) collectSources() {
	p.sources = make([][]*foreignKey, len(p.s.tables))
	p.parent = make([]bool, len(p.s.tables))
	for _, fk := range p.keys {
		if fk.origin != fkShared && !fk.cycle {
			p.sources[fk.child] = append(p.sources[fk.child], fk)
			p.parent[fk.parent] = p.parent[fk.parent] || fk.parent != fk.child
		}
	}
}
