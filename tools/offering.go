package tools

import "github.com/sqlgym/sqlgym/env"

// Offering is the tools each dataset of a server offers: the set
// ByDataset names for a dataset, Default for every other one.
type Offering struct {
	Default   Set
	ByDataset map[string]Set
}

// For is the set the named dataset offers.
func (o Offering) For(dataset string) Set {
	if set, ok := o.ByDataset[dataset]; ok {
		return set
	}
	return o.Default
}

// Offers reports whether any dataset may offer the named tool: the
// default set or one dataset's has it.
func (o Offering) Offers(tool string) bool {
	if o.Default.Has(tool) {
		return true
	}
	for _, s := range o.ByDataset {
		if s.Has(tool) {
			return true
		}
	}
	return false
}

// Datasets returns the datasets of dss that offer the named tool, in
// their order.
func (o Offering) Datasets(dss []*env.Dataset, tool string) []*env.Dataset {
	var out []*env.Dataset
	for _, ds := range dss {
		if o.For(ds.Name).Has(tool) {
			out = append(out, ds)
		}
	}
	return out
}
