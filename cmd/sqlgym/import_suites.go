package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/internal/app/dbimport"
)

// suitesRoot is the test-suite folder: --testsuite-dir, else
// DATA-DIR/testsuites.
func (f *importFlags) suitesRoot() string {
	if f.testsuiteDir != "" {
		return f.testsuiteDir
	}
	return filepath.Join(f.dataDir, "testsuites")
}

// suites is the folder the import reads ds's test suites from, "" when
// there are none to carry.
func (f *importFlags) suites(ds *env.Dataset) string {
	if _, err := os.Stat(filepath.Join(f.suitesRoot(), ds.Name)); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return f.suitesRoot()
}

// serveName is the name serve gives the imported dataset by default: its
// folder's.
func (f *importFlags) serveName() string {
	if src, err := datasets.ParseSource("jsonl:" + f.out); err == nil {
		return src.Name
	}
	return "pg"
}

// saySuites says where the carried test suites are, or how to carry some.
func (f *importFlags) saySuites(w io.Writer, ds *env.Dataset, imp *dbimport.Imported) {
	root := f.suitesRoot()
	if imp.Report.Suites == nil {
		fmt.Fprintf(w, "no test suites of %s in %s to carry (sqlgym testsuite build --dataset %s, then import again, to judge on them here too)\n",
			ds.Name, root, f.dataset)
		return
	}
	where := "--data-dir " + f.dataDir
	if f.testsuiteDir != "" {
		where = "--testsuite-dir " + f.testsuiteDir
	}
	fmt.Fprintf(w, "test suites carried for %d databases into %s; serve judges on them (--judge auto) as long as it serves the dataset as %s with %s\n",
		len(imp.Suites), filepath.Join(root, f.serveName()), f.serveName(), where)
}
