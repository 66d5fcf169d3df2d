package suitegen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym/base/atomicfile"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// writeSuites writes the suites of m into dir: the old manifest goes
// first, then each kept database is copied from its scratch file
// (scratch gives it by candidate index), then the manifest, and last the
// files no manifest lists any more. A build that stops half-way thus
// leaves no manifest, never one naming files it does not describe.
func writeSuites(dir string, m *testsuite.Manifest, scratch func(candidate int) string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	manifest := filepath.Join(dir, testsuite.ManifestName)
	if err := os.Remove(manifest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for i := range m.Databases {
		d := &m.Databases[i]
		n, err := copyFile(scratch(d.Candidate), filepath.Join(dir, d.File))
		if err != nil {
			return fmt.Errorf("keep %s: %w", d.Name, err)
		}
		d.Bytes = n
		m.Build.Files++
		m.Build.Bytes += n
	}
	if err := testsuite.WriteManifest(manifest, m); err != nil {
		return err
	}
	return prune(dir, m)
}

// copyFile copies src to dst, whole or not at all, and returns its size.
func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	var n int64
	err = atomicfile.Write(dst, atomicfile.Options{Perm: 0o444}, func(w *bufio.Writer) error {
		n, err = io.Copy(w, in)
		return err
	})
	return n, err
}

// prune removes from dir the suite databases m does not list and the
// temporary files of writes that never finished.
func prune(dir string, m *testsuite.Manifest) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	keep := map[string]bool{testsuite.ManifestName: true}
	for _, d := range m.Databases {
		keep[d.File] = true
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		stray := strings.HasPrefix(name, "ts-") && strings.HasSuffix(name, ".sqlite") ||
			strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp")
		if !keep[name] && stray && e.Type().IsRegular() {
			errs = append(errs, os.Remove(filepath.Join(dir, name)))
		}
	}
	return errors.Join(errs...)
}
