package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
)

// A REPL started on the data dir of a running server fails, and its
// error says the two ways out: a data dir of its own, or attaching to the
// running server with repl --url.
func TestDataDirInUseNamesTheWaysOut(t *testing.T) {
	dir := t.TempDir()
	serveObserved(t, []string{"--data-dir", dir})
	var out, errs strings.Builder
	err := replMain(context.Background(), []string{"--data-dir", dir, "--history", ""},
		strings.NewReader(".quit\n"), &out, &errs)
	if !errors.Is(err, filelog.ErrLocked) {
		t.Fatalf("repl on a served data dir: %v, want filelog.ErrLocked", err)
	}
	for _, want := range []string{"--data-dir", "repl --url", dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %q:\n%v", want, err)
		}
	}
}
