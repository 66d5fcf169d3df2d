package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sqlgym/sqlgym/base/atomicfile"
)

// writeFile writes path through write, whole or not at all, 0644,
// making its folder first where it is missing. An error of write's own
// comes back as it is; the file's are about --out.
func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--out %s: make its folder: %w", path, err)
	}
	var werr error
	err := atomicfile.Write(path, atomicfile.Options{Perm: 0o644}, func(w *bufio.Writer) error {
		werr = write(w)
		return werr
	})
	if err != nil && werr == nil {
		return fmt.Errorf("--out: %w", err)
	}
	return err
}
