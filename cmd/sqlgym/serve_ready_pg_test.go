package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestReadyzLosesThePostgresStore: a replica whose PostgreSQL trajectory
// store goes away (its database dropped, connections and all) is not
// ready, /readyz says the store's check fails and why, and /livez stays
// 200.
func TestReadyzLosesThePostgresStore(t *testing.T) {
	store := pgtest.Database(t)
	p := binserver.Start(t, binserver.Build(t), "--data-dir", t.TempDir(), "--trajectories", store, "--ready-interval", "1ms")
	code, r := readiness(t, p.HTTP())
	if _, bad := failing(r, "trajectories"); code != http.StatusOK || bad || !hasCheck(r.Checks, "trajectories") {
		t.Fatalf("/readyz with the store up: %d %+v", code, r)
	}
	dropDatabase(t, store)
	waitfor.Until(t, "/readyz answers 503", func() bool {
		code, _ := probe(t, p.HTTP()+"/readyz")
		return code == http.StatusServiceUnavailable
	})
	_, r = readiness(t, p.HTTP())
	if why, bad := failing(r, "trajectories"); !bad || !strings.Contains(why, "pgstore") {
		t.Fatalf("/readyz does not say the store is lost: %+v", r)
	}
	if code, _ := probe(t, p.HTTP()+"/livez"); code != http.StatusOK {
		t.Fatalf("/livez: %d", code)
	}
}

// dropDatabase drops the test server's database at dbURL, its
// connections and all.
func dropDatabase(t *testing.T, dbURL string) {
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := strings.TrimPrefix(u.Path, "/")
	if _, err := conn.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
}

// TestReadyzLosesThePostgresEngine: a replica serving a PostgreSQL
// dataset whose server stops answering for it (the database dropped) is
// not ready, and /readyz names the engine's check.
func TestReadyzLosesThePostgresEngine(t *testing.T) {
	dir, base, _ := pgDataset(t)
	p := binserver.Start(t, binserver.Build(t), "--dataset", "pg=jsonl:"+dir, "--engine", "pg="+base,
		"--data-dir", t.TempDir(), "--ready-interval", "1ms")
	code, r := readiness(t, p.HTTP())
	if code != http.StatusOK || !hasCheck(r.Checks, "engine:postgres") {
		t.Fatalf("/readyz with the engine up: %d %+v", code, r)
	}
	dropDatabase(t, base)
	waitfor.Until(t, "/readyz answers 503", func() bool {
		code, _ := probe(t, p.HTTP()+"/readyz")
		return code == http.StatusServiceUnavailable
	})
	_, r = readiness(t, p.HTTP())
	if why, bad := failing(r, "engine:postgres"); !bad || !strings.Contains(why, "postgres server") {
		t.Fatalf("/readyz does not say the engine is lost: %+v", r)
	}
}
