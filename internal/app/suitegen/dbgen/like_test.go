package dbgen

import (
	"database/sql"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mattn/go-sqlite3"
)

// sqliteLike asks SQLite whether s LIKE pattern.
func sqliteLike(tb testing.TB, db *sql.DB, pattern, s string) bool {
	tb.Helper()
	var match bool
	if err := db.QueryRow("SELECT ? LIKE ?", s, pattern).Scan(&match); err != nil {
		tb.Fatal(err)
	}
	return match
}

// memoryDB is an in-memory SQLite database on one connection.
func memoryDB(tb testing.TB) *sql.DB {
	db := sql.OpenDB(connector{dsn: ":memory:", drv: &sqlite3.SQLiteDriver{}})
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	return db
}

var likeCases = []struct{ pattern, s string }{
	{"%nn%", "Annie"}, {"%nn%", "ANNIE"}, {"%nn%", "n"}, {"a%", "abc"}, {"a%", "bac"}, {"%z", "quiz"},
	{"_b%", "abba"}, {"_b%", "b"}, {"korea", "Korea"}, {"korea", "korean"}, {"%", ""}, {"", ""}, {"_", ""},
	{"%a%b%", "xaxbx"}, {"%a%b%", "ba"}, {"é%", "É"}, {"é%", "éa"}, {"_", "é"}, {"%%%a", "bbba"}, {"100%", "100"},
}

func TestLikeMatch(t *testing.T) {
	db := memoryDB(t)
	for _, tt := range likeCases {
		if got, want := likeMatch(tt.pattern, tt.s), sqliteLike(t, db, tt.pattern, tt.s); got != want {
			t.Errorf("likeMatch(%q, %q) = %v, SQLite says %v", tt.pattern, tt.s, got, want)
		}
	}
}

// FuzzLikeMatch checks likeMatch against SQLite's own LIKE on valid UTF-8
// without NUL (which SQLite's LIKE reads differently: it stops there).
func FuzzLikeMatch(f *testing.F) {
	for _, tt := range likeCases {
		f.Add(tt.pattern, tt.s)
	}
	db := memoryDB(f)
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(s) || strings.ContainsRune(pattern+s, 0) {
			return
		}
		if got, want := likeMatch(pattern, s), sqliteLike(t, db, pattern, s); got != want {
			t.Fatalf("likeMatch(%q, %q) = %v, SQLite says %v", pattern, s, got, want)
		}
	})
}
