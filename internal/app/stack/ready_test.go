package stack_test

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestReadyChecksSQLiteFiles: over the demo recorded to a file log, the
// one check is the demo's files; it passes while they are there and,
// once one is removed, fails naming it.
func TestReadyChecksSQLiteFiles(t *testing.T) {
	ctx := context.Background()
	ds, log := demoAndLog(t)
	st := stack.New(stack.EngineConfig{}, log, ds)
	defer st.Close()
	checks := st.ReadyChecks()
	if len(checks) != 1 || checks[0].Name != "dataset:demo" {
		t.Fatalf("checks %v, want dataset:demo alone", checks)
	}
	if err := checks[0].Probe(ctx); err != nil {
		t.Fatalf("the demo's files are there: %v", err)
	}
	ids := make([]string, 0, len(ds.DBs))
	for id := range ds.DBs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	gone := ds.DBs[ids[len(ids)-1]]
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if err := checks[0].Probe(ctx); err == nil || !strings.Contains(err.Error(), "file "+gone+" is gone") {
		t.Errorf("after removing %s: %v, want it named as gone", gone, err)
	}
}

// TestReadyChecksServers: a PostgreSQL trajectory store is checked, and
// a PostgreSQL engine only when a dataset is in its dialect.
func TestReadyChecksServers(t *testing.T) {
	ctx := context.Background()
	url, _ := pgtest.URL(t)
	store, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	st := stack.New(stack.EngineConfig{Postgres: &postgres.Config{}}, store)
	defer st.Close()
	if names := checkNames(st); names != "trajectories" {
		t.Fatalf("checks %q with no dataset, want trajectories alone", names)
	}
	st.Datasets = []*env.Dataset{{Name: "pg", Dialect: env.Postgres}}
	if names := checkNames(st); names != "trajectories engine:postgres" {
		t.Fatalf("checks %q with a PostgreSQL dataset, want trajectories and engine:postgres", names)
	}
	if err := st.ReadyChecks()[0].Probe(ctx); err != nil {
		t.Errorf("the store reaches its server, but its check fails: %v", err)
	}
}

// checkNames are the names of st's ready checks, in order.
func checkNames(st *stack.Stack) string {
	var names []string
	for _, c := range st.ReadyChecks() {
		names = append(names, c.Name)
	}
	return strings.Join(names, " ")
}
