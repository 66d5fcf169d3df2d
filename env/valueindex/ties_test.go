package valueindex

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
)

// tiesScript is a column of 20,000 distinct tracking ids stored once
// each (TRK00000001 ... TRK00020000), all tied in frequency, and 50 ids
// stored 3 times each (HOT00000001 ... HOT00000050).
const tiesScript = `CREATE TABLE shipments(tracking_id TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO shipments SELECT printf('TRK%08d', i) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150)
INSERT INTO shipments SELECT printf('HOT%08d', (i - 1) % 50 + 1) FROM n;`

// tiedIDs and hotIDs are the counts tiesScript stores.
const tiedIDs, hotIDs = 20_000, 50

// TestTiesKeepAnUnbiasedSample indexes a column whose values nearly all
// tie in frequency within a budget of about a tenth of them: every value
// stored more often is kept, and of those that tie, a sample spread over
// the whole range of ids (a tenth in each tenth of it, about), not the
// first ones in text order; the same sample at every build. A late id
// kept is found; one not kept is not, and the search says the column was
// sampled among the values held by one row.
func TestTiesKeepAnUnbiasedSample(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ties.sqlite")
	if err := sqlite.Build(context.Background(), path, tiesScript); err != nil {
		t.Fatal(err)
	}
	budget := 2000 * valueCost("TRK00000001")
	s, ds, db := openSQLite(t, path, Config{MaxBytes: budget})
	m := find(t, s, ds, db, "shipments", "tracking_id", "HOT00000050")
	if len(m.Matches) == 0 || m.Matches[0].Value != "HOT00000050" {
		t.Errorf("HOT00000050, stored 3 times, not found first: %+v", m.Matches)
	}
	if len(m.Partial) != 1 {
		t.Fatalf("partial %+v, want shipments.tracking_id", m.Partial)
	}
	p := m.Partial[0]
	if p.Indexed != 2000 || p.Distinct != tiedIDs+hotIDs || p.TieRows != 1 || p.TieKept != 2000-hotIDs ||
		p.TieTotal != tiedIDs || p.Bound != s.cfg.boundBytes() {
		t.Errorf("partial %+v, want 2000 of %d kept: the %d stored 3 times and %d of the %d held by 1 row, cut by %q",
			p, tiedIDs+hotIDs, hotIDs, 2000-hotIDs, tiedIDs, s.cfg.boundBytes())
	}

	kept := keptIDs(t, s, ds)
	tenths := make([]int, 10)
	late, lateCut := 0, 0
	for i := 1; i <= tiedIDs; i++ {
		switch {
		case kept[fmt.Sprintf("TRK%08d", i)]:
			tenths[(i-1)*10/tiedIDs]++
			late = i
		case i > tiedIDs*9/10:
			lateCut = i
		}
	}
	for i := 1; i <= hotIDs; i++ {
		if !kept[fmt.Sprintf("HOT%08d", i)] {
			t.Errorf("HOT%08d, stored 3 times, was not kept", i)
		}
	}
	want := (2000 - hotIDs) / 10
	for i, n := range tenths {
		if n < want/2 || n > want*3/2 {
			t.Errorf("tenth %d of the ids kept %d, want about %d (%v): not an unbiased sample", i+1, n, want, tenths)
		}
	}
	lateID, cutID := fmt.Sprintf("TRK%08d", late), fmt.Sprintf("TRK%08d", lateCut)
	if m := find(t, s, ds, db, "shipments", "tracking_id", lateID); len(m.Matches) == 0 || m.Matches[0].Value != lateID {
		t.Errorf("%s was kept, yet not found first: %+v", lateID, m.Matches)
	}
	if m := find(t, s, ds, db, "", "", cutID); len(m.Matches) != 0 && m.Matches[0].Value == cutID || len(m.Partial) != 1 {
		t.Errorf("%s was not kept: matches %+v, partial %+v; want it not found, the column named as cut", cutID, m.Matches, m.Partial)
	}

	again, ds2, db2 := openSQLite(t, path, Config{MaxBytes: budget})
	find(t, again, ds2, db2, "", "", "HOT00000001")
	if other := keptIDs(t, again, ds2); !sameKeys(other, kept) {
		t.Errorf("a second build kept %d values, not the same %d", len(other), len(kept))
	}
}

// refillScript is tiesScript's 20,000 tracking ids in table a, and 100
// distinct codes in table b, indexed after a.
const refillScript = `CREATE TABLE a(tracking_id TEXT); CREATE TABLE b(code TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO a SELECT printf('TRK%08d', i) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
INSERT INTO b SELECT printf('C%04d', i) FROM n;`

// TestRefillGoesOnWithTheSample indexes a column of tied values that is
// cut at its first read (room is kept for the column after it) and read
// again for the room that column left: what it keeps in the end is the
// values of least tie key, as if it had been read once with all the
// room, and the small column is whole.
func TestRefillGoesOnWithTheSample(t *testing.T) {
	path := filepath.Join(t.TempDir(), "refill.sqlite")
	if err := sqlite.Build(context.Background(), path, refillScript); err != nil {
		t.Fatal(err)
	}
	s, ds, db := openSQLite(t, path, Config{MaxBytes: 2000 * valueCost("TRK00000001")})
	m := find(t, s, ds, db, "", "", "C0100")
	if len(m.Matches) == 0 || m.Matches[0].Value != "C0100" || len(m.Partial) != 1 || m.Partial[0].Table != "a" {
		t.Fatalf("matches %+v, partial %+v: want C0100 found, a.tracking_id alone cut", m.Matches, m.Partial)
	}
	p := m.Partial[0]
	kept := keptIDs(t, s, ds)
	n := int(p.Indexed)
	t.Logf("a.tracking_id: %d of %d kept", n, p.Distinct)
	if p.TieKept != p.Indexed || p.TieTotal != tiedIDs || n <= 1500 || len(kept) != n+100 {
		t.Errorf("partial %+v, %d values in the index: want more than the 1,500 of the first read kept, besides b's 100", p, len(kept))
	}
	if least := leastKeys(tiedIDs, n); !sameKeys(least, withoutCodes(kept)) {
		t.Errorf("a.tracking_id kept other values than the %d of least key", n)
	}
}

// leastKeys are the n of ids TRK00000001 ... TRK<total> of least tie key.
func leastKeys(total, n int) map[string]bool {
	keys := make([]tieKey, total)
	for i := range keys {
		keys[i] = keyOf(fmt.Sprintf("TRK%08d", i+1))
	}
	slices.SortFunc(keys, func(a, b tieKey) int {
		if a.less(b) {
			return -1
		}
		return 1
	})
	out := map[string]bool{}
	for _, k := range keys[:n] {
		out[k.text] = true
	}
	return out
}

// withoutCodes is kept less table b's codes.
func withoutCodes(kept map[string]bool) map[string]bool {
	out := map[string]bool{}
	for v := range kept {
		if strings.HasPrefix(v, "TRK") {
			out[v] = true
		}
	}
	return out
}

// keptIDs are the values the index of database "db" of ds holds, as
// its file under the Store's directory stores them.
func keptIDs(t *testing.T, s *Store, ds *env.Dataset) map[string]bool {
	t.Helper()
	_, path, err := identify(ds, "db", s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := sql.Open("sqlite3", readURI(path))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rows, err := ix.Query("SELECT value FROM vals")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out[v] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameKeys says whether a and b hold the same keys.
func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
