package valueindex

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
)

// randomWord is a word of 3 to 10 random lower-case letters.
func randomWord(r *rand.Rand) string {
	b := make([]byte, 3+r.IntN(8))
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return string(b)
}

// randomQuery is n random words, as a hostile caller sends them: almost
// none is stored, so each goes through the typo pass.
func randomQuery(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	ws := make([]string, n)
	for i := range ws {
		ws[i] = randomWord(r)
	}
	return strings.Join(ws, " ")
}

// commonWords end the values of a vocabDataset, one each in turn.
var commonWords = []string{"street", "road", "lane", "way"}

// commonQuery is the common words followed by random words, n in all:
// a hostile query that makes a search score as many values as it can.
func commonQuery(seed uint64, n int) string {
	return strings.Join(commonWords, " ") + " " + randomQuery(seed, n-len(commonWords))
}

// vocabDataset is a SQLite database "big" of one table t(v) holding n
// distinct values of two random words and one of commonWords each (a
// vocabulary of about 2n words, and four words each in a quarter of the
// values), made under dir.
func vocabDataset(tb testing.TB, dir string, n int) *env.Dataset {
	tb.Helper()
	path := filepath.Join(dir, "big.sqlite")
	if err := sqlite.Build(context.Background(), path, "CREATE TABLE t(v TEXT);"); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	ins, err := tx.Prepare("INSERT INTO t(v) VALUES (?)")
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(n), 2))
	seen := make(map[string]bool, n)
	for len(seen) < n {
		v := randomWord(r) + " " + randomWord(r) + " " + commonWords[len(seen)%len(commonWords)]
		if seen[v] {
			continue
		}
		seen[v] = true
		if _, err := ins.Exec(v); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return &env.Dataset{Name: "vocab", Dialect: env.SQLite, DBs: map[string]string{"big": path}}
}

// vocabStore builds the index of a vocabDataset of n values and returns
// a Store over it with the database open.
func vocabStore(tb testing.TB, n int, cfg Config) (*Store, *env.Dataset, env.DB) {
	tb.Helper()
	ds := vocabDataset(tb, tb.TempDir(), n)
	cat := env.NewCatalog(sqlite.New(sqlite.Config{}))
	tb.Cleanup(func() { cat.Close() })
	db, err := cat.DB(context.Background(), ds, "big")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Dir = tb.TempDir()
	cfg.MaxDistinct = max(cfg.MaxDistinct, n) // one column holds every value
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.Prepare(context.Background(), ds, "big", db); err != nil {
		tb.Fatal(err)
	}
	return s, ds, db
}
