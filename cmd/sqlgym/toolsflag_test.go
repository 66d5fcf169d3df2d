package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesUnusableValueIndexDir: a --value-index-dir that cannot
// be made (a path under a regular file) stops serve at startup with a
// usage error naming it, instead of failing every database's index. The
// --addr cannot be listened on, so a server that got that far fails
// otherwise.
func TestServeRefusesUnusableValueIndexDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "index")
	_, _, err := sqlgym(t, "serve", "--tools", "execute_sql,search_values", "--value-index-dir", bad, "--data-dir", t.TempDir(),
		"--addr", "256.0.0.1:0", "--token", "x")
	if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--value-index-dir "+bad) {
		t.Errorf("err = %v (%T), want a usage error naming --value-index-dir %s", err, err, bad)
	}
}

// TestDatasetToolsNamesALoadedDataset: --dataset-tools for a dataset that
// is not loaded is a usage error, found before the server opens anything
// (the --addr cannot be listened on).
func TestDatasetToolsNamesALoadedDataset(t *testing.T) {
	_, _, err := sqlgym(t, "serve", "--dataset-tools", "nosuch=execute_sql", "--data-dir", t.TempDir(),
		"--addr", "256.0.0.1:0", "--token", "x")
	if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--dataset-tools nosuch: no dataset of that name") {
		t.Errorf("err = %v (%T), want a usage error naming --dataset-tools nosuch", err, err)
	}
}
