// Package spiderdev finds the shared Spider-dev benchmark data for tests:
// ../shared/data/spider-dev from the module root. Where it is absent a
// test is skipped with a message, except under CI=true, where it fails:
// CI must run the integration tests. It imports only the standard library,
// so any package's tests may use it.
package spiderdev

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/needs"
)

// Tasks is the number of questions in the shared dev.json.
const Tasks = 972

// Dir returns the Spider-dev folder (holding dev.json and database/), or
// skips tb (fails it under CI=true) when it is not there.
func Dir(tb testing.TB) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(root, "..", "shared", "data", "spider-dev")
	if _, err := os.Stat(filepath.Join(dir, "dev.json")); err != nil {
		needs.Missing(tb, fmt.Sprintf("Spider-dev data not found at %s, the shared benchmark data beside the repository: %v", dir, err))
	}
	return dir
}

// moduleRoot is the folder holding go.mod, above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
