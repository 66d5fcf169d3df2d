package main

import (
	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
)

// datasetDirs are the directories of the datasets a command serves, which
// the value index must stay out of (datasets.Dirs).
func (s *stackFlags) datasetDirs(dss []*env.Dataset) []string {
	return datasets.Dirs(s.datasets.values, dss)
}
