package main

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
)

// datasetDirs are the directories of the datasets a command serves, which
// the value index must stay out of: each --dataset folder (the folder
// holding it, when it names a file) and the folder of each SQLite
// database, the demo's included.
func (s *stackFlags) datasetDirs(dss []*env.Dataset) []string {
	var dirs []string
	for _, v := range s.datasets.values {
		if src, err := datasets.ParseSource(v); err == nil {
			dirs = append(dirs, sourceDir(src.Path))
		}
	}
	for _, ds := range dss {
		if ds.Dialect != env.SQLite {
			continue
		}
		for _, path := range ds.DBs {
			dirs = append(dirs, filepath.Dir(path))
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// sourceDir is a --dataset path's folder: the path itself when it is a
// folder, the folder holding it otherwise.
func sourceDir(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path
	}
	return filepath.Dir(path)
}
