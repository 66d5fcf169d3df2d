package episodes

import (
	"fmt"
	"slices"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/tools"
)

// checkDatasetTools checks that every dataset's tools are the server's
// and name a served dataset.
func checkDatasetTools(cfg Config) error {
	for name, set := range cfg.DatasetTools {
		if !cfg.serves(name) {
			return fmt.Errorf("new manager: tools for dataset %q, which is not served", name)
		}
		if _, err := cfg.Tools.Subset(set.Names()); err != nil {
			return fmt.Errorf("new manager: tools of dataset %q: %w (the server offers %v)", name, err, cfg.Tools.Names())
		}
	}
	return nil
}

// serves reports whether a dataset of that name is among c's.
func (c *Config) serves(name string) bool {
	return slices.ContainsFunc(c.Datasets, func(ds *env.Dataset) bool { return ds.Name == name })
}

// datasetTools are the tools a dataset offers.
func (m *Manager) datasetTools(ds *env.Dataset) tools.Set {
	if set, ok := m.cfg.DatasetTools[ds.Name]; ok {
		return set
	}
	return m.cfg.Tools
}

// episodeTools are the tools a reset asks for: the dataset's, or the
// subset of them it names.
func (m *Manager) episodeTools(ds *env.Dataset, names []string) (tools.Set, error) {
	set := m.datasetTools(ds)
	if names == nil {
		return set, nil
	}
	sub, err := set.Subset(names)
	if err != nil {
		return tools.Set{}, errorf(InvalidArgument, "tools: %v (the tools of dataset %s)", err, ds.Name)
	}
	return sub, nil
}
