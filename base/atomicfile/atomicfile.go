// Package atomicfile makes a file appear whole or not at all: it is written
// into a temporary file beside its final name, synced, and renamed over that
// name, so a reader or a crash sees the old file or the new one, never part
// of one.
package atomicfile

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Options say how a file is made.
type Options struct {
	// Perm is the file's permission bits, set as given (the umask does not
	// apply); 0 leaves os.CreateTemp's 0600.
	Perm fs.FileMode
	// SyncDir fsyncs the directory after the rename, so that the new name,
	// not only the bytes, survives a crash.
	SyncDir bool
	// NoSync skips every fsync: readers still see a whole file, but a crash
	// may leave the old one or a truncated new one. For stores configured
	// without durability.
	NoSync bool
}

// bufSize is the buffer Write gives its callback.
const bufSize = 64 << 10

// Write makes path from what write writes to a buffered writer over the
// temporary file; Write flushes it. When write or any later step fails,
// path is left as it was and the temporary file is removed.
func Write(path string, opt Options, write func(w *bufio.Writer) error) (err error) {
	f, err := create(path)
	if err != nil {
		return err
	}
	defer cleanUp(f.Name(), &err)
	w := bufio.NewWriterSize(f, bufSize)
	if err := errors.Join(write(w), w.Flush()); err != nil {
		f.Close()
		return err
	}
	return commit(f, path, opt)
}

// Build makes path through fill, which is given the path of an empty
// temporary file to fill by itself (for writers that open the file by name,
// such as a database driver). When fill or any later step fails, path is
// left as it was and the temporary file is removed.
func Build(path string, opt Options, fill func(tmpPath string) error) (err error) {
	f, err := create(path)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer cleanUp(tmp, &err)
	if err := f.Close(); err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		return err
	}
	if f, err = os.OpenFile(tmp, os.O_RDWR, 0); err != nil {
		return err
	}
	return commit(f, path, opt)
}

// create makes the temporary file: hidden, beside path, so the rename stays
// within one file system and directory listings skip it.
func create(path string) (*os.File, error) {
	return os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
}

// cleanUp removes the temporary file when the write failed.
func cleanUp(tmp string, err *error) {
	if *err != nil {
		os.Remove(tmp)
	}
}

// commit sets f's mode, syncs and closes it, renames it over path and, if
// asked, syncs the directory.
func commit(f *os.File, path string, opt Options) error {
	var err error
	if opt.Perm != 0 {
		err = f.Chmod(opt.Perm)
	}
	if err == nil && !opt.NoSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	if opt.SyncDir && !opt.NoSync {
		return SyncDir(filepath.Dir(path))
	}
	return nil
}

// SyncDir fsyncs a directory, making its entries (a created or renamed
// file) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
