package valueindex

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// fileState is what tells a file rewritten: its bytes' hash, size and
// modification time.
type fileState struct {
	sum   [32]byte
	size  int64
	mtime time.Time
}

func snapshot(t *testing.T, paths []string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = fileState{sha256.Sum256(b), fi.Size(), fi.ModTime()}
	}
	return out
}

func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, filepath.Join(dir, e.Name()))
	}
	sort.Strings(out)
	return out
}

// prepareAll prepares the index of every database of ds.
func prepareAll(t *testing.T, s *Store, ds *env.Dataset, cat *env.Catalog) {
	t.Helper()
	ctx := context.Background()
	for _, id := range sortedIDs(ds) {
		db, err := cat.DB(ctx, ds, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Prepare(ctx, ds, id, db); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIndexLeavesDatasetUnchanged builds every index of the demo and
// checks that the databases' files are byte for byte as they were, and
// that no file was added beside them.
func TestIndexLeavesDatasetUnchanged(t *testing.T) {
	ds, cat := demoDataset(t)
	var dbFiles []string
	for _, p := range ds.DBs {
		dbFiles = append(dbFiles, p)
	}
	dataDir := filepath.Dir(dbFiles[0])
	before, listed := snapshot(t, dbFiles), dirFiles(t, dataDir)
	s := newStore(t, t.TempDir(), nil)
	prepareAll(t, s, ds, cat)
	after := snapshot(t, dbFiles)
	for p, st := range before {
		if after[p] != st {
			t.Errorf("%s changed while its index was built", p)
		}
	}
	if got := dirFiles(t, dataDir); !slices.Equal(got, listed) {
		t.Errorf("files beside the databases: %v, want %v", got, listed)
	}
}

// TestSecondStartReusesIndex builds the demo's indexes with one Store,
// then opens them with a second over the same directory: every database
// is reported reused, and no index file is rewritten.
func TestSecondStartReusesIndex(t *testing.T) {
	ds, cat := demoDataset(t)
	dir := t.TempDir()
	var first progressLog
	s1 := newStore(t, dir, &first)
	prepareAll(t, s1, ds, cat)
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range first.all() {
		if p.Reused || p.Err != nil || p.Values == 0 {
			t.Errorf("first start: %+v, want a build with values", p)
		}
	}
	files := dirFiles(t, dir)
	if len(files) != len(ds.DBs) {
		t.Fatalf("index files %v, want one per database (%d)", files, len(ds.DBs))
	}
	before := snapshot(t, files)
	var second progressLog
	s2 := newStore(t, dir, &second)
	prepareAll(t, s2, ds, cat)
	got := second.all()
	if len(got) != len(ds.DBs) {
		t.Fatalf("second start reported %d databases, want %d", len(got), len(ds.DBs))
	}
	for _, p := range got {
		if !p.Reused {
			t.Errorf("second start rebuilt %s: %+v", p.DBID, p)
		}
	}
	after := snapshot(t, dirFiles(t, dir))
	if len(after) != len(before) {
		t.Errorf("index files after the second start: %d, want %d", len(after), len(before))
	}
	for p, st := range before {
		if after[p] != st {
			t.Errorf("%s was rewritten by the second start", p)
		}
	}
	m := search(t, s2, ds, cat, "library", env.ValueQuery{Query: "Jane Austen", Limit: 5})
	if len(m.Matches) == 0 || m.Matches[0].Value != "Jane Austen" {
		t.Errorf("search over a reused index: %+v", m.Matches)
	}
}

// TestChangedDatabaseRebuilds touches a database file: its index no
// longer matches and is built again.
func TestChangedDatabaseRebuilds(t *testing.T) {
	ds, cat := demoDataset(t)
	dir := t.TempDir()
	s1 := newStore(t, dir, nil)
	prepareAll(t, s1, ds, cat)
	s1.Close()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(ds.DBs["library"], later, later); err != nil {
		t.Fatal(err)
	}
	var log progressLog
	s2 := newStore(t, dir, &log)
	prepareAll(t, s2, ds, cat)
	for _, p := range log.all() {
		if want := p.DBID != "library"; p.Reused != want {
			t.Errorf("%s: reused %v, want %v", p.DBID, p.Reused, want)
		}
	}
}

// TestBoundsAreReported indexes with small bounds: a column with more
// distinct values than MaxDistinct keeps its most frequent, long values
// are counted, and the columns past MaxValues keep none; a search names
// each column cut, how many of its values were indexed and what cut it.
func TestBoundsAreReported(t *testing.T) {
	ds, cat := demoDataset(t)
	s, err := New(Config{Dir: t.TempDir(), MaxDistinct: 3, MaxValueChars: 12, MaxValues: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := search(t, s, ds, cat, "library", env.ValueQuery{Query: "Leeds", Limit: 5})
	if m.LongSkipped == 0 {
		t.Errorf("long values %d: want them counted", m.LongSkipped)
	}
	bounds := map[string]env.PartialColumn{}
	for _, p := range m.Partial {
		bounds[p.Table+"."+p.Column] = p
	}
	name, ok := bounds["authors.name"]
	if !ok || name.Indexed != 3 || name.Distinct != 23 || !strings.Contains(name.Bound, "--value-index-max-distinct") {
		t.Errorf("authors.name %+v (found %v): want 3 of 23 indexed, cut by --value-index-max-distinct", name, ok)
	}
	var indexed int64
	byValues := 0
	for _, p := range m.Partial {
		indexed += p.Indexed
		if strings.Contains(p.Bound, "--value-index-max-values") {
			byValues++
		}
	}
	if byValues == 0 || indexed > 5 {
		t.Errorf("partial %+v: want columns past --value-index-max-values named, at most 5 values indexed", m.Partial)
	}
}
