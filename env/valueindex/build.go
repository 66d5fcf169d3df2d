package valueindex

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/base/atomicfile"
	"github.com/sqlgym/sqlgym/env"
)

// schemaSQL makes an index file's tables: its identity, every column of
// the database (indexed or not, so narrowing can tell a wrong name), the
// values, and the two full-text indexes over them (contentless: the
// values table holds the text, the indexes only its words and trigrams).
const schemaSQL = `
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE cols(id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, col TEXT NOT NULL,
  indexed INTEGER NOT NULL, distinct_values INTEGER NOT NULL, bound TEXT NOT NULL, long_skipped INTEGER NOT NULL,
  tie_rows INTEGER NOT NULL, tie_kept INTEGER NOT NULL, tie_total INTEGER NOT NULL);
CREATE TABLE vals(id INTEGER PRIMARY KEY, col_id INTEGER NOT NULL, value TEXT NOT NULL, nrows INTEGER NOT NULL,
  nwords INTEGER NOT NULL, ngrams INTEGER NOT NULL);
CREATE VIRTUAL TABLE words USING fts4(content="", body, tokenize=simple);
CREATE VIRTUAL TABLE grams USING fts4(content="", body, tokenize=simple);
CREATE VIRTUAL TABLE words_terms USING fts4aux(words);
CREATE VIRTUAL TABLE grams_terms USING fts4aux(grams);
CREATE TABLE vocab(word TEXT NOT NULL, len INTEGER NOT NULL, rev TEXT NOT NULL, docs INTEGER NOT NULL,
  PRIMARY KEY(len, word)) WITHOUT ROWID;
CREATE INDEX vocab_rev ON vocab(len, rev);
CREATE TABLE gram_docs(gram TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
`

// gramDocsSQL fills the trigrams' value counts, which a search reads to
// choose the terms it scores, from the trigrams' index once it holds
// every value.
const gramDocsSQL = `INSERT INTO gram_docs(gram, docs)
SELECT term, documents FROM grams_terms WHERE col = '*'`

// build writes the index of db, whose identity is id, to path: into a
// temporary file first, which is synced and renamed over path
// (base/atomicfile), the folder synced after.
func build(ctx context.Context, db env.DB, dialect env.Dialect, id identity, path string, cfg Config) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("value index: %w", err)
	}
	var fillErr error // names itself
	err := atomicfile.Build(path, atomicfile.Options{SyncDir: true}, func(tmp string) error {
		fillErr = fill(ctx, db, dialect, id, tmp, cfg)
		return fillErr
	})
	if err != nil && err != fillErr {
		return fmt.Errorf("value index: %w", err)
	}
	return err
}

// fill writes the index into the (empty) file at path.
func fill(ctx context.Context, db env.DB, dialect env.Dialect, id identity, path string, cfg Config) error {
	out, err := sql.Open("sqlite3", writeURI(path))
	if err != nil {
		return fmt.Errorf("value index: %w", err)
	}
	defer out.Close()
	out.SetMaxOpenConns(1)
	if _, err := out.ExecContext(ctx, schemaSQL); err != nil {
		return fmt.Errorf("value index: create: %w", err)
	}
	tx, err := out.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("value index: %w", err)
	}
	defer tx.Rollback()
	deadline, _ := ctx.Deadline()
	b := &builder{cfg: cfg, db: db, dialect: dialect, tx: tx, deadline: deadline}
	if err := b.prepare(ctx); err != nil {
		return err
	}
	defer b.close()
	if err := b.index(ctx); err != nil {
		return err
	}
	id = copyIdentity(id)
	id["values"] = strconv.FormatInt(b.nextVal, 10)
	id["words_tokens"] = strconv.FormatInt(b.nwords, 10)
	id["grams_tokens"] = strconv.FormatInt(b.ngrams, 10)
	for k, v := range id {
		if _, err := tx.ExecContext(ctx, "INSERT INTO meta(k, v) VALUES (?, ?)", k, v); err != nil {
			return fmt.Errorf("value index: meta: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("value index: commit: %w", err)
	}
	if err := fillVocab(ctx, out); err != nil {
		return err
	}
	for _, t := range []string{"words", "grams"} {
		if _, err := out.ExecContext(ctx, "INSERT INTO "+t+"("+t+") VALUES ('optimize')"); err != nil {
			return fmt.Errorf("value index: optimize: %w", err)
		}
	}
	return nil
}

// fillVocab fills the vocabulary, which the typo pass of a search reads,
// and the trigrams' value counts, from the full-text indexes once they
// hold every value (committed: fts4aux does not read the terms of a
// transaction under way): each stored word with its length in
// characters, its characters reversed (a suffix is looked up as the
// prefix of rev) and the values that hold it. The words are read in
// chunks of vocabChunk, in order, so that a vocabulary of millions of
// words is never held at once.
func fillVocab(ctx context.Context, out *sql.DB) error {
	tx, err := out.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("value index: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, "INSERT INTO vocab(word, len, rev, docs) VALUES (?, ?, ?, ?)")
	if err != nil {
		return fmt.Errorf("value index: vocabulary: %w", err)
	}
	defer ins.Close()
	for after := ""; ; {
		chunk, err := vocabWords(ctx, tx, after)
		if err != nil {
			return err
		}
		if len(chunk) == 0 {
			break
		}
		for _, e := range chunk {
			if _, err := ins.ExecContext(ctx, e.word, utf8.RuneCountInString(e.word), reverse(e.word), e.docs); err != nil {
				return fmt.Errorf("value index: vocabulary: %w", err)
			}
		}
		after = chunk[len(chunk)-1].word
	}
	if _, err := tx.ExecContext(ctx, gramDocsSQL); err != nil {
		return fmt.Errorf("value index: trigram counts: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("value index: commit: %w", err)
	}
	return nil
}

// vocabChunk is how many words fillVocab reads at a time.
const vocabChunk = 65536

// vocabEntry is a stored word and the values that hold it.
type vocabEntry struct {
	word string
	docs int64
}

// vocabWords are the next vocabChunk stored words after after, in order.
func vocabWords(ctx context.Context, tx *sql.Tx, after string) ([]vocabEntry, error) {
	rows, err := tx.QueryContext(ctx, "SELECT term, documents FROM words_terms WHERE col = '*' AND term > ? ORDER BY term LIMIT ?", after, vocabChunk)
	if err != nil {
		return nil, fmt.Errorf("value index: vocabulary: %w", err)
	}
	defer rows.Close()
	var out []vocabEntry
	for rows.Next() {
		var e vocabEntry
		if err := rows.Scan(&e.word, &e.docs); err != nil {
			return nil, fmt.Errorf("value index: vocabulary: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("value index: vocabulary: %w", err)
	}
	return out, nil
}

// reverse is s with its characters in reverse order.
func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// first is the first of two results.
func first[T any](v T, _ bool) T { return v }

// isText reports whether a column may hold text: in SQLite any column
// (values carry their own types, filtered when read), in PostgreSQL the
// character types.
func isText(dialect env.Dialect, typ string) bool {
	if dialect == env.SQLite {
		return true
	}
	t := strings.ToLower(typ)
	return strings.Contains(t, "char") || strings.Contains(t, "text") || t == "name" || t == "citext"
}

func count(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

// quoted writes a name in double quotes, as both dialects read it.
func quoted(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

func copyIdentity(id identity) identity {
	out := identity{}
	for k, v := range id {
		out[k] = v
	}
	return out
}

// sortedIDs are a dataset's db_ids in order.
func sortedIDs(ds *env.Dataset) []string {
	ids := make([]string, 0, len(ds.DBs))
	for id := range ds.DBs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
