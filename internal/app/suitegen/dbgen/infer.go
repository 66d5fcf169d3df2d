package dbgen

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// collectDeclared lists the declared keys rows follow, and apart those
// that cannot be followed.
func (p *Plan) collectDeclared() {
	for _, t := range p.s.tables {
		for _, fk := range t.fks {
			if fk.usable() {
				p.keys = append(p.keys, &fk)
			} else {
				p.unusable = append(p.unusable, fk)
			}
		}
	}
}

// inferKeys makes a key of each column pair the golds join that no
// declared key ties: the side that is a key of its table is the parent
// (both: the side whose source values hold the other's); when neither
// is, the two columns share one pool. A column draws rows from one
// parent at most: a second join of it shares pools instead.
func (p *Plan) inferKeys(ctx context.Context, conn *sql.Conn, joins []join) error {
	for _, j := range joins {
		if p.tied(j.a, j.b) {
			continue
		}
		fk, err := p.inferKey(ctx, conn, j.a, j.b)
		if err != nil {
			return err
		}
		p.keys = append(p.keys, fk)
	}
	return nil
}

// tied reports whether a key already ties columns a and b: one to the
// other, either way, or both to one parent column (city.CountryCode and
// countrylanguage.CountryCode both follow country.Code).
func (p *Plan) tied(a, b colRef) bool {
	pa, pb := p.parentsOf(a), p.parentsOf(b)
	return slices.Contains(pa, b) || slices.Contains(pb, a) || slices.ContainsFunc(pa, func(x colRef) bool { return slices.Contains(pb, x) })
}

// parentsOf lists the columns the keys so far tie column c to as a child.
func (p *Plan) parentsOf(c colRef) []colRef {
	var out []colRef
	for _, fk := range p.keys {
		for i, cc := range fk.cols {
			if (colRef{fk.child, cc}) == c {
				out = append(out, colRef{fk.parent, fk.parentCols[i]})
			}
		}
	}
	return out
}

// inferKey decides which side of a join is the parent.
func (p *Plan) inferKey(ctx context.Context, conn *sql.Conn, a, b colRef) (*foreignKey, error) {
	aKey := p.s.tables[a.table].hasKey([]int{a.col})
	bKey := p.s.tables[b.table].hasKey([]int{b.col})
	child, parent := b, a
	switch {
	case aKey && bKey:
		in, err := p.contained(ctx, conn, b, a)
		if err != nil {
			return nil, err
		}
		if !in {
			child, parent = a, b
		}
	case bKey:
		child, parent = a, b
	case !aKey:
		return p.newKey(child, parent, fkShared, false), nil
	}
	if p.drawsRows(child) {
		return p.newKey(child, parent, fkShared, false), nil
	}
	strict, err := p.contained(ctx, conn, child, parent)
	return p.newKey(child, parent, fkInferred, strict), err
}

// newKey is a one-column key.
func (p *Plan) newKey(child, parent colRef, origin fkOrigin, strict bool) *foreignKey {
	return &foreignKey{child: child.table, parent: parent.table, cols: []int{child.col}, parentCols: []int{parent.col},
		origin: origin, strict: strict, parentName: p.s.tables[parent.table].name}
}

// drawsRows reports whether a key already gives column c its values.
func (p *Plan) drawsRows(c colRef) bool {
	return slices.ContainsFunc(p.keys, func(fk *foreignKey) bool {
		return fk.origin != fkShared && fk.child == c.table && slices.Contains(fk.cols, c.col)
	})
}

// contained reports whether every non-NULL source value of child is a
// value of parent: whether the source keeps the join's integrity.
func (p *Plan) contained(ctx context.Context, conn *sql.Conn, child, parent colRef) (bool, error) {
	ct, pt := p.s.tables[child.table], p.s.tables[parent.table]
	cc, pc := quoteIdent(ct.columns[child.col].name), quoteIdent(pt.columns[parent.col].name)
	q := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NOT NULL AND %s NOT IN (SELECT %s FROM %s WHERE %s IS NOT NULL)",
		quoteIdent(ct.name), cc, cc, pc, quoteIdent(pt.name), pc)
	var n int
	if err := conn.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return false, fmt.Errorf("dbgen: join %s.%s = %s.%s: %w", ct.name, ct.columns[child.col].name, pt.name, pt.columns[parent.col].name, err)
	}
	return n == 0, nil
}
