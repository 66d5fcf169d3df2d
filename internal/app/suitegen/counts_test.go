package suitegen

import (
	"context"
	"flag"
	"fmt"
	"github.com/sqlgym/sqlgym/internal/testkit/sqlitetest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

var update = flag.Bool("update", false, "rewrite testdata/neighbours.tsv")

// TestNeighbourCounts counts the neighbours kept (at most
// DefaultMaxNeighbours, each running on an empty copy of the schema and
// on the source database) of every distinct gold of Spider-dev and
// compares the counts with testdata/neighbours.tsv; -update rewrites it.
// Every gold that runs keeps at least one neighbour.
func TestNeighbourCounts(t *testing.T) {
	ds := spider(t)
	b := newBuilder(ds, t.TempDir(), Config{Seed: 1}.withDefaults())
	var lines []string
	for dbID, golds := range testsuite.Golds(ds) {
		src := copySources(t, ds.DBs[dbID])
		for _, g := range golds {
			w, err := b.prepare(context.Background(), g, src)
			if err != nil {
				t.Fatal(err)
			}
			if w.counts.Neighbours == 0 && !w.counts.GoldFailed {
				t.Errorf("%s: %s: no neighbour", dbID, g)
			}
			lines = append(lines, fmt.Sprintf("%s\t%d\t%d\t%s", dbID, w.counts.Neighbours, w.counts.ByOriginal, strings.Join(strings.Fields(g), " ")))
		}
	}
	slices.Sort(lines)
	got := "db_id\tneighbours\tby_original\tgold\n" + strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "neighbours.tsv")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s (go test ./internal/app/suitegen -run TestNeighbourCounts -update writes it): %v", path, err)
	}
	if got != string(want) {
		t.Errorf("neighbour counts differ from %s (-update rewrites it):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only one of want and got has.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// copySources opens the source database at path, an empty copy of its
// schema made from its sqlite_master, and reads its schema.
func copySources(t *testing.T, path string) sources {
	t.Helper()
	ctx := context.Background()
	orig := openSQLite(t, path)
	rs, err := orig.Query(ctx, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'", env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	for _, r := range rs.Rows {
		script.WriteString(r[0].(string) + ";\n")
	}
	sc, err := SchemaOf(ctx, orig)
	if err != nil {
		t.Fatal(err)
	}
	return sources{schema: sc, original: orig, empty: sqlitetest.Open(t, script.String())}
}
