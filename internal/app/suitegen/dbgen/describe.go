package dbgen

// Description is what a plan holds, for reports and docs.
type Description struct {
	Tables      []TableDescription      `json:"tables"`
	ForeignKeys []ForeignKeyDescription `json:"foreign_keys"`
	FillOrder   []string                `json:"fill_order"` // the tables, in the order they are filled
	Golds       int                     `json:"golds"`      // golds given
	// RejectedGolds are the indexes of the golds SQLite could not prepare
	// on the source: they seed nothing.
	RejectedGolds []int `json:"rejected_golds,omitempty"`
}

// TableDescription describes one table.
type TableDescription struct {
	Name       string              `json:"name"`
	SourceRows int                 `json:"source_rows"`
	Columns    []ColumnDescription `json:"columns"`
}

// ColumnDescription describes one column's values.
type ColumnDescription struct {
	Name    string   `json:"name"`
	Classes []string `json:"classes"` // the storage classes of its source values (typeof names)
	Kind    string   `json:"kind"`    // what its values are: "integer", "date", "text holding integers", ...
	// Pool counts the values it draws from: its sample of the source's,
	// the golds' seeds, and those of the columns it shares a pool with.
	Pool int `json:"pool"`
	// Seeds counts the pool's values that come from gold literals: the
	// literals and their perturbations, its own and its children's.
	Seeds int `json:"seeds"`
	// Literals are the golds' literals compared with it, typed for it, as
	// SQL.
	Literals []string `json:"literals,omitempty"`
	// Nulls says whether the NULL rule gives it NULLs, NullShare in what
	// share of its rows.
	Nulls     bool    `json:"nulls"`
	NullShare float64 `json:"null_share,omitempty"`
	// SharesWith names ("table.column") the other columns of its pool.
	SharesWith []string `json:"shares_with,omitempty"`
}

// ForeignKeyDescription describes a foreign key rows follow, or one
// declared that they cannot.
type ForeignKeyDescription struct {
	Table      string   `json:"table"`
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns,omitempty"`
	// Origin is "declared", "inferred" (a join of the golds whose parent
	// side is a key) or "shared" (a join where neither side is: the two
	// columns draw from one pool).
	Origin string `json:"origin"`
	// Strict says every child value is a parent value: always for a
	// declared key; for an inferred one, when the source keeps it so.
	Strict bool `json:"strict"`
	// Cycle says the key closes a cycle of keys: its columns share their
	// parent's pool instead of drawing its rows.
	Cycle bool `json:"cycle,omitempty"`
	// Unused says why a declared key is not followed.
	Unused string `json:"unused,omitempty"`
}

// originNames name the origins in a Description.
var originNames = [...]string{fkDeclared: "declared", fkInferred: "inferred", fkShared: "shared"}

// Describe tells what the plan holds.
func (p *Plan) Describe() Description {
	d := Description{Golds: p.golds, RejectedGolds: p.rejected}
	for _, t := range p.s.tables {
		td := TableDescription{Name: t.name, SourceRows: t.rows}
		for _, c := range t.columns {
			td.Columns = append(td.Columns, p.describeColumn(c))
		}
		d.Tables = append(d.Tables, td)
	}
	for _, fk := range p.keys {
		d.ForeignKeys = append(d.ForeignKeys, p.describeKey(fk))
	}
	for _, fk := range p.unusable {
		d.ForeignKeys = append(d.ForeignKeys, p.describeKey(&fk))
	}
	for _, t := range p.order {
		d.FillOrder = append(d.FillOrder, p.s.tables[t].name)
	}
	return d
}

// describeColumn describes one column.
func (p *Plan) describeColumn(c *column) ColumnDescription {
	cd := ColumnDescription{Name: c.name, Classes: c.stats.classes.names(), Kind: kindNames[c.stats.kind],
		Nulls: c.nullP > 0, NullShare: c.nullP}
	pl := p.pools[c.pool]
	for i, v := range c.values {
		if v != nil {
			cd.Pool++
			if pl.gold[i] {
				cd.Seeds++
			}
		}
	}
	for _, v := range c.lits {
		cd.Literals = append(cd.Literals, renderSQL(v))
	}
	for _, m := range pl.members {
		if o := p.s.col(m); o != c {
			cd.SharesWith = append(cd.SharesWith, p.s.tables[m.table].name+"."+o.name)
		}
	}
	return cd
}

// describeKey describes one key.
func (p *Plan) describeKey(fk *foreignKey) ForeignKeyDescription {
	child := p.s.tables[fk.child]
	d := ForeignKeyDescription{Table: child.name, RefTable: fk.parentName, Origin: originNames[fk.origin],
		Strict: fk.strict && fk.usable(), Cycle: fk.cycle, Unused: fk.unusedWhy}
	for _, c := range fk.cols {
		d.Columns = append(d.Columns, child.columns[c].name)
	}
	if fk.parent >= 0 {
		for _, c := range fk.parentCols {
			d.RefColumns = append(d.RefColumns, p.s.tables[fk.parent].columns[c].name)
		}
	}
	return d
}
