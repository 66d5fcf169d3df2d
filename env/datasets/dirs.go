package datasets

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/sqlgym/sqlgym/env"
)

// Dir is the source's folder: Path itself when it is a folder, the
// folder holding it otherwise.
func (s Source) Dir() string {
	if fi, err := os.Stat(s.Path); err == nil && fi.IsDir() {
		return s.Path
	}
	return filepath.Dir(s.Path)
}

// Dirs are the folders the datasets of values (--dataset values,
// [NAME=]FORMAT:PATH) and dss keep their files in, which nothing sqlgym
// writes may enter: each value's Dir and the folder of each SQLite
// database of dss, the demo's included; sorted, each once. A value that
// does not parse names no folder.
func Dirs(values []string, dss []*env.Dataset) []string {
	var dirs []string
	for _, v := range values {
		if src, err := ParseSource(v); err == nil {
			dirs = append(dirs, src.Dir())
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
