package suitegen

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/reward/testsuite"
	"github.com/sqlgym/sqlgym/schemas"
)

// spiderDBs are the Spider-dev databases the build tests distil: three
// small ones, 103 tasks between them.
var spiderDBs = []string{"battle_death", "concert_singer", "pets_1"}

// spiderConfig is the build tests' configuration: few candidates, so the
// tests stay quick.
func spiderConfig() Config { return Config{Seed: 11, Candidates: 12, Workers: 2} }

// TestBuildSpider builds the suites of three Spider-dev databases and
// checks them: the store opens and serves every task's suite; every gold
// is correct on every database of its suite, as the judge runs it; the
// suite tells apart every neighbour some candidate tells apart; a second
// build makes the same manifests and files; a build over a store that is
// current reuses it all; a changed gold rebuilds its database alone.
func TestBuildSpider(t *testing.T) {
	ctx := context.Background()
	ds := subset(t, spider(t), spiderDBs...)
	root := t.TempDir()
	cfg := spiderConfig()
	var progress []string
	cfg.Progress = func(dataset string, db DBReport) { progress = append(progress, dataset+"/"+db.DBID) }
	rep, err := Build(ctx, ds, root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Sort(progress); !slices.Equal(progress, []string{"spider-dev/battle_death", "spider-dev/concert_singer", "spider-dev/pets_1"}) {
		t.Errorf("progress reported %v, want each database once", progress)
	}
	if rep.Totals.Timeouts > 0 {
		t.Fatalf("%d runs timed out: the build's outcome depends on the machine", rep.Totals.Timeouts)
	}
	store := openStore(t, root, ds)
	st := store.Status()[0]
	if !slices.Equal(st.Current, spiderDBs) || st.Tasks != len(ds.Tasks) || st.Covered < st.Tasks*9/10 {
		t.Errorf("status %+v: want %v current and nine tasks in ten or more covered", st, spiderDBs)
	}
	checkGoldsCorrect(t, store, ds)
	for _, dbID := range spiderDBs {
		checkSpiderSuites(t, ds, root, dbID)
	}
	checkRebuilds(t, ds, root)
}

// openStore opens the store at root for ds through a catalog of the
// SQLite engine, closed when the test ends.
func openStore(t testing.TB, root string, ds *env.Dataset) *testsuite.Store {
	t.Helper()
	return newSuiteJudging(t, root, ds).store
}

// checkGoldsCorrect judges each task's gold as the prediction on every
// database of its suite, under the bird and the spider rule: each must be
// correct.
func checkGoldsCorrect(t *testing.T, store *testsuite.Store, ds *env.Dataset) {
	t.Helper()
	j := judge.New(judge.Config{})
	for i := range ds.Tasks {
		task := &ds.Tasks[i]
		suite, err := store.Suite(context.Background(), task)
		if err != nil {
			t.Fatal(err)
		}
		for _, db := range suite {
			for _, mode := range []string{schemas.MatchBird, schemas.MatchSpider} {
				v, err := j.Judge(context.Background(), db.DB, db.Key, task, task.GoldSQL, schemas.RewardSpec{Match: mode})
				if err != nil || v.Outcome != schemas.OutcomeCorrect {
					t.Errorf("%s on %s (%s): %s %v", task.ID, db.Name, mode, v.Outcome, err)
				}
			}
		}
	}
}

// checkSpiderSuites draws the candidates of db_id again and checks each
// gold's suite, as stored, against them by brute force.
func checkSpiderSuites(t *testing.T, ds *env.Dataset, root, dbID string) {
	t.Helper()
	ctx := context.Background()
	cfg := spiderConfig().withDefaults()
	b := newBuilder(ds, root, cfg)
	golds := testsuite.Golds(ds)[dbID]
	gen, err := DBGen(ctx, ds.DBs[dbID], golds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	src, err := b.sources(ctx, ds.DBs[dbID], gen, scratch)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	cands := newPool(b.eng, gen, scratch, "c", cfg.Seed, streamCandidates)
	defer cands.close()
	var all []env.DB
	for i := range cfg.Candidates {
		db, err := cands.db(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, db)
	}
	m := readManifest(t, root, ds.Name, dbID)
	for _, g := range m.Golds {
		w, err := b.prepare(ctx, g.SQL, src)
		if err != nil {
			t.Fatal(err)
		}
		if w.counts.Neighbours != g.Counts.Neighbours {
			t.Errorf("%s: %d neighbours, the manifest says %d", g.SQL, w.counts.Neighbours, g.Counts.Neighbours)
		}
		bySome, bySuite := tellable(t, b, w, all), tellable(t, b, w, suiteDBs(t, root, ds.Name, dbID, g.Suite))
		if !slices.Equal(bySome, bySuite) || count(bySuite, nil) != g.Counts.BySuite {
			t.Errorf("%s: %d neighbours told apart by some candidate, %d by the suite %v, the manifest says %d",
				g.SQL, count(bySome, nil), count(bySuite, nil), g.Suite, g.Counts.BySuite)
		}
	}
}

// suiteDBs opens the stored databases of a suite.
func suiteDBs(t *testing.T, root, dataset, dbID string, names []string) []env.DB {
	t.Helper()
	var out []env.DB
	for _, n := range names {
		out = append(out, openSQLite(t, filepath.Join(testsuite.Dir(root, dataset, dbID), n+".sqlite")))
	}
	return out
}

// checkRebuilds builds ds again: into another root (the same manifests
// and files), into root (every database reused, nothing rewritten), and
// into root with one gold changed (that database alone rebuilt).
func checkRebuilds(t *testing.T, ds *env.Dataset, root string) {
	t.Helper()
	ctx := context.Background()
	again := t.TempDir()
	if _, err := Build(ctx, ds, again, spiderConfig()); err != nil {
		t.Fatal(err)
	}
	for _, dbID := range spiderDBs {
		sameStore(t, root, again, ds.Name, dbID)
	}
	before := manifestTimes(t, root, ds.Name)
	rep, err := Build(ctx, ds, root, spiderConfig())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Reused != len(spiderDBs) || !maps.Equal(before, manifestTimes(t, root, ds.Name)) {
		t.Errorf("second build: %d of %d reused, manifests rewritten: %v", rep.Totals.Reused, len(spiderDBs), !maps.Equal(before, manifestTimes(t, root, ds.Name)))
	}
	changed := subset(t, ds, spiderDBs...)
	for i := range changed.Tasks {
		if changed.Tasks[i].DBID == "concert_singer" {
			changed.Tasks[i].GoldSQL = "SELECT name FROM singer WHERE age > 40"
			break
		}
	}
	rep, err = Build(ctx, changed, root, spiderConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range rep.Databases {
		if db.Reused != (db.DBID != "concert_singer") {
			t.Errorf("after a gold of concert_singer changed: %s reused %v", db.DBID, db.Reused)
		}
	}
	goldOf(t, readManifest(t, root, ds.Name, "concert_singer"), "SELECT name FROM singer WHERE age > 40")
}

// sameStore checks that two stores hold the same manifest (build times
// aside) and the same files for db_id.
func sameStore(t *testing.T, a, b, dataset, dbID string) {
	t.Helper()
	if ma, mb := manifestText(t, a, dataset, dbID), manifestText(t, b, dataset, dbID); ma != mb {
		t.Errorf("%s: two builds' manifests differ:\n%s\n%s", dbID, ma, mb)
		return
	}
	for _, d := range readManifest(t, a, dataset, dbID).Databases {
		fa := readBytes(t, filepath.Join(testsuite.Dir(a, dataset, dbID), d.File))
		fb := readBytes(t, filepath.Join(testsuite.Dir(b, dataset, dbID), d.File))
		if !bytes.Equal(fa, fb) {
			t.Errorf("%s: two builds' %s differ", dbID, d.File)
		}
	}
}

// manifestTimes are the modification times of the manifests of a
// dataset's databases under root, by db_id.
func manifestTimes(t *testing.T, root, dataset string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, dbID := range spiderDBs {
		st, err := os.Stat(testsuite.ManifestPath(root, dataset, dbID))
		if err != nil {
			t.Fatal(err)
		}
		out[dbID] = st.ModTime().UnixNano()
	}
	return out
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
