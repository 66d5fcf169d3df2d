package valueindex

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
	_ "github.com/mattn/go-sqlite3" // registers the sqlite3 driver the index files are opened with

	"github.com/sqlgym/sqlgym/env"
)

// BM25's parameters, as Lucene and SQLite's FTS5 use them.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// index is one database's index file, open read-only.
type index struct {
	db     *sql.DB
	cols   []column
	values int64
	capped bool
}

// column is one column of the indexed database.
type column struct {
	id          int64
	table, name string
	sampled     bool
	longSkipped int64
}

// errNoIndex is openIndex's answer when there is no usable index.
var errNoIndex = errors.New("no index of this identity")

// openIndex opens the index at path when it was built from id. Only a
// regular file is opened (a named pipe would block the open forever): a
// path that holds anything else is a *notRegularError, and nothing is
// built over it.
func openIndex(path string, id identity) (*index, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoIndex
	}
	if err != nil {
		return nil, &notRegularError{path: path, err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &notRegularError{path: path, kind: fileKind(fi.Mode())}
	}
	db, err := sql.Open("sqlite3", readURI(path))
	if err != nil {
		return nil, err
	}
	ix := &index{db: db}
	if err := ix.load(id); err != nil {
		db.Close()
		return nil, err
	}
	return ix, nil
}

// load reads the index's meta and columns, and checks its identity.
func (ix *index) load(id identity) error {
	meta := map[string]string{}
	rows, err := ix.db.Query("SELECT k, v FROM meta")
	if err != nil {
		return errNoIndex // not an index file, or one left half written
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return err
		}
		meta[k] = v
	}
	rows.Close()
	if !id.matches(meta) {
		return errNoIndex
	}
	ix.values, _ = strconv.ParseInt(meta["values"], 10, 64)
	ix.capped = meta["capped"] == "true"
	return ix.loadColumns()
}

func (ix *index) loadColumns() error {
	rows, err := ix.db.Query("SELECT id, tbl, col, sampled, long_skipped FROM cols ORDER BY id")
	if err != nil {
		return fmt.Errorf("value index: columns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.id, &c.table, &c.name, &c.sampled, &c.longSkipped); err != nil {
			return fmt.Errorf("value index: columns: %w", err)
		}
		ix.cols = append(ix.cols, c)
	}
	return rows.Err()
}

func (ix *index) close() error { return ix.db.Close() }

// search answers q: BM25 over the words, plus BM25 over the trigrams,
// summed per value; the best q.Limit values, ties to the value held by
// more rows, then to the one indexed first.
func (ix *index) search(ctx context.Context, q env.ValueQuery) (*env.ValueMatches, error) {
	cols, err := ix.narrow(q.Table, q.Column)
	if err != nil {
		return nil, err
	}
	out := ix.report(cols)
	ws := words(cut(q.Query, env.MaxValueQueryChars))
	fixes, err := ix.corrections(ctx, ws)
	if err != nil {
		return nil, err
	}
	scores := map[int64]float64{}
	for _, p := range []struct{ table, match string }{
		{"words", matchQuery(append(ws, fixes...), maxQueryWords+maxCorrections)},
		{"grams", matchQuery(grams(ws), maxQueryGrams)},
	} {
		if p.match == "" {
			continue
		}
		if err := ix.rank(ctx, p.table, p.match, cols, scores); err != nil {
			return nil, err
		}
	}
	out.Matches, err = ix.best(ctx, scores, max(q.Limit, 1))
	return out, err
}

// Bounds of the typo pass: how far a stored word may be from a query word
// that the database does not hold (1 edit up to 5 letters, 2 past), and
// how many such words a query adds at most.
const (
	shortWord      = 5
	maxCorrections = 48
)

// corrections are the stored words one or two edits away from each query
// word the database does not hold, closest first, then the words more
// values hold: they let "Asja" find "Asia" and "dpg" find "dog", which
// share too few trigrams.
func (ix *index) corrections(ctx context.Context, ws []string) ([]string, error) {
	var out []string
	for _, w := range ws {
		var held int
		if err := ix.db.QueryRowContext(ctx, "SELECT count(*) FROM vocab WHERE word = ?", w).Scan(&held); err != nil {
			return nil, fmt.Errorf("value index: vocabulary: %w", err)
		}
		if held > 0 {
			continue
		}
		near, err := ix.near(ctx, w)
		if err != nil {
			return nil, err
		}
		out = append(out, near...)
	}
	return out[:min(len(out), maxCorrections)], nil
}

// near are the stored words within the typo distance of w.
func (ix *index) near(ctx context.Context, w string) ([]string, error) {
	n := utf8.RuneCountInString(w)
	dist := 1
	if n > shortWord {
		dist = 2
	}
	rows, err := ix.db.QueryContext(ctx, "SELECT word, docs FROM vocab WHERE len BETWEEN ? AND ?", n-dist, n+dist)
	if err != nil {
		return nil, fmt.Errorf("value index: vocabulary: %w", err)
	}
	defer rows.Close()
	type cand struct {
		word       string
		dist, docs int
	}
	var cs []cand
	for rows.Next() {
		var c cand
		if err := rows.Scan(&c.word, &c.docs); err != nil {
			return nil, fmt.Errorf("value index: vocabulary: %w", err)
		}
		if c.dist = levenshtein.ComputeDistance(w, c.word); c.dist <= dist {
			cs = append(cs, c)
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		if cs[i].docs != cs[j].docs {
			return cs[i].docs > cs[j].docs
		}
		return cs[i].word < cs[j].word
	})
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.word)
	}
	return out, rows.Err()
}

// narrow returns the ids of the columns a query is narrowed to (nil for
// every column), or the error naming what does not exist.
func (ix *index) narrow(table, col string) (map[int64]bool, error) {
	if table == "" && col == "" {
		return nil, nil
	}
	ids := map[int64]bool{}
	tableFound := false
	for _, c := range ix.cols {
		if table != "" && !strings.EqualFold(c.table, table) {
			continue
		}
		tableFound = true
		if col == "" || strings.EqualFold(c.name, col) {
			ids[c.id] = true
		}
	}
	switch {
	case !tableFound:
		return nil, env.NewQueryError(env.ErrNoSuchTable, "no such table: "+table)
	case len(ids) == 0 && table != "":
		return nil, env.NewQueryError(env.ErrNoSuchColumn, fmt.Sprintf("no such column: %s.%s", table, col))
	case len(ids) == 0:
		return nil, env.NewQueryError(env.ErrNoSuchColumn, "no column of any table is named "+col)
	}
	return ids, nil
}

// report is what the index left out of the columns searched.
func (ix *index) report(cols map[int64]bool) *env.ValueMatches {
	out := &env.ValueMatches{Matches: []env.ValueMatch{}, Capped: ix.capped}
	for _, c := range ix.cols {
		if cols != nil && !cols[c.id] {
			continue
		}
		if c.sampled {
			out.Sampled = append(out.Sampled, c.table+"."+c.name)
		}
		out.LongSkipped += c.longSkipped
	}
	return out
}

// rank adds the BM25 score of every value that matches in one full-text
// table to scores.
func (ix *index) rank(ctx context.Context, table, match string, cols map[int64]bool, scores map[int64]float64) error {
	// FTS4 matches by the table's own name, not an alias.
	q := fmt.Sprintf("SELECT %[1]s.docid, matchinfo(%[1]s, 'pcnalx'), v.col_id FROM %[1]s JOIN vals v ON v.id = %[1]s.docid WHERE %[1]s MATCH ?", table)
	rows, err := ix.db.QueryContext(ctx, q, match)
	if err != nil {
		return fmt.Errorf("value index: search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, col int64
		var info []byte
		if err := rows.Scan(&id, &info, &col); err != nil {
			return fmt.Errorf("value index: search: %w", err)
		}
		if cols == nil || cols[col] {
			scores[id] += bm25(info)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("value index: search: %w", err)
	}
	return nil
}

// bm25 scores one row from matchinfo 'pcnalx' of a one-column table:
// phrases p, columns c, rows n, average length a, this row's length l,
// then per phrase its hits here, its hits in all rows, and the rows it
// is in.
func bm25(info []byte) float64 {
	v := make([]uint32, len(info)/4)
	for i := range v {
		v[i] = binary.NativeEndian.Uint32(info[4*i:])
	}
	if len(v) < 5 {
		return 0
	}
	p, n, avg, length := int(v[0]), float64(v[2]), math.Max(float64(v[3]), 1), float64(v[4])
	score := 0.0
	for i := 0; i < p && 5+3*i+2 < len(v); i++ {
		tf, docs := float64(v[5+3*i]), float64(v[5+3*i+2])
		if tf == 0 {
			continue
		}
		idf := math.Log(1 + (n-docs+0.5)/(docs+0.5))
		score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*length/avg))
	}
	return score
}

// best reads the n best-scored values.
func (ix *index) best(ctx context.Context, scores map[int64]float64, n int) ([]env.ValueMatch, error) {
	type scored struct {
		m  env.ValueMatch
		id int64
	}
	all := make([]scored, 0, len(scores))
	for id, s := range scores {
		all = append(all, scored{env.ValueMatch{Score: s}, id})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].m.Score != all[j].m.Score {
			return all[i].m.Score > all[j].m.Score
		}
		return all[i].id < all[j].id
	})
	// Ties on score go to the value more rows hold: read a few more than
	// n so a tie at the cut is settled by rows too.
	all = all[:min(len(all), n+8)]
	for i := range all {
		var col int64
		err := ix.db.QueryRowContext(ctx, "SELECT value, nrows, col_id FROM vals WHERE id = ?", all[i].id).
			Scan(&all[i].m.Value, &all[i].m.Rows, &col)
		if err != nil {
			return nil, fmt.Errorf("value index: read value: %w", err)
		}
		c := ix.cols[col-1] // column ids are 1..len, in order
		all[i].m.Table, all[i].m.Column = c.table, c.name
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].m.Score != all[j].m.Score {
			return all[i].m.Score > all[j].m.Score
		}
		return all[i].m.Rows > all[j].m.Rows
	})
	out := make([]env.ValueMatch, 0, n)
	for _, s := range all[:min(len(all), n)] {
		out = append(out, s.m)
	}
	return out, nil
}

// readURI opens an index file read-only; it never changes once renamed
// into place (a rebuild writes a new file).
func readURI(path string) string {
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&immutable=1"}
	return u.String()
}

// writeURI opens a new index file for the build: no journal (a failed
// build leaves a temporary file that is removed, never a damaged index).
func writeURI(path string) string {
	u := url.URL{Scheme: "file", Path: path, RawQuery: "_journal_mode=OFF&_sync=OFF"}
	return u.String()
}
