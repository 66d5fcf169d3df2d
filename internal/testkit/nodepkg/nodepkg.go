// Package nodepkg installs a small npm package that tests run with node
// (a package.json, its package-lock.json and its scripts): npm ci from the
// lock file into a folder of the user's cache named for the files' hash,
// so that it is installed once. Without node or npm the test is skipped,
// and fails under CI=true (scripts/node-up installs them).
package nodepkg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/testkit/needs"
)

// Install installs the package whose files (package.json,
// package-lock.json and its scripts, by name) are given, unless an
// install of the same files is in the cache already, and returns node's
// path and the folder it is installed in. name names the cache folder;
// probe, a path inside the install (a dependency's package.json), tells a
// whole install. what says what node runs, for the message of a test
// that goes without it.
func Install(tb testing.TB, name string, files map[string][]byte, probe, what string) (node, dir string) {
	tb.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		needs.Missing(tb, fmt.Sprintf("node and npm are needed to run %s (scripts/node-up installs them): %v %v", what, errNode, errNpm))
	}
	h := sha256.New()
	for _, f := range slices.Sorted(maps.Keys(files)) {
		h.Write([]byte(f))
		h.Write(files[f])
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir = filepath.Join(cache, "sqlgym", name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, probe)); err == nil {
		return node, dir
	}
	install(tb, npm, dir, files)
	return node, dir
}

// install runs npm ci on files in a folder beside dir, then renames it
// into place: a folder of that name is always a whole install.
func install(tb testing.TB, npm, dir string, files map[string][]byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("npm ci: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(dir); statErr != nil { // another run put it there first
			tb.Fatal(err)
		}
	}
}
