package valueindex

import (
	"fmt"
	"path/filepath"
	"strings"
)

// CheckOutside returns an error when dir, the directory index files are
// to be written in, lies inside one of datasetDirs (or is one of them):
// the index would write among a dataset's files, which stay unchanged.
// Both sides are compared with their symbolic links resolved; a
// directory that does not exist yet is resolved through its nearest
// existing parent. The error names both paths.
func CheckOutside(dir string, datasetDirs []string) error {
	real, err := resolve(dir)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", dir, err)
	}
	for _, ds := range datasetDirs {
		realDS, err := resolve(ds)
		if err != nil {
			return fmt.Errorf("resolving the dataset directory %s: %w", ds, err)
		}
		if within(real, realDS) {
			return fmt.Errorf("it lies inside %s, a directory of a served dataset (with symbolic links resolved, %s lies inside %s): "+
				"index files would be written among the dataset's files; choose a directory outside every dataset",
				ds, real, realDS)
		}
	}
	return nil
}

// resolve is path made absolute with its symbolic links resolved: those
// of its nearest parent that resolves, when it does not (it does not
// exist yet, or cannot be made), with the rest joined on.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := abs; ; {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// within reports whether path is dir or lies under it; both are clean
// absolute paths.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
