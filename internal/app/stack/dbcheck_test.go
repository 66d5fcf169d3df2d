package stack_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/app/stack"
)

// TestCheckDatabasesNamesEachBadOne checks the demo's databases with one
// missing file added: the check fails naming that database and its file,
// and only it.
func TestCheckDatabasesNamesEachBadOne(t *testing.T) {
	ctx := context.Background()
	ds, err := stack.Demo(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := stack.New(stack.EngineConfig{}, nil, ds)
	defer st.Close()
	if err := stack.CheckDatabases(ctx, st.Catalog, []*env.Dataset{ds}, zap.NewNop()); err != nil {
		t.Fatalf("the demo's databases: %v", err)
	}
	good := len(ds.DBs)
	ghost := filepath.Join(t.TempDir(), "ghost.sqlite")
	ds.DBs["ghost"] = ghost
	err = stack.CheckDatabases(ctx, st.Catalog, []*env.Dataset{ds}, zap.NewNop())
	if err == nil {
		t.Fatal("a missing database passed the check")
	}
	msg := err.Error()
	if want := "1 of " + strconv.Itoa(good+1) + " databases"; !strings.Contains(msg, want) || !strings.Contains(msg, ds.Name+"/ghost: "+ghost) {
		t.Errorf("check error %q; want %q and the ghost database named with its file", msg, want)
	}
}
