package valueindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"

	_ "github.com/mattn/go-sqlite3" // registers the sqlite3 driver the index files are opened with

	"github.com/sqlgym/sqlgym/env"
)

// index is one database's index file, open read-only.
type index struct {
	db     *sql.DB
	cols   []column
	values int64
	// avgLen is the average number of terms of a value in each
	// full-text table, BM25's average length.
	avgLen map[string]float64
}

// column is one column of the indexed database: its values indexed, of
// those it holds, the bound that cut it ("" when it is whole) and where
// (the values held by tieRows rows: tieKept of tieTotal indexed).
type column struct {
	id                         int64
	table, name                string
	indexed, distinct          int64
	bound                      string
	longSkipped                int64
	tieRows, tieKept, tieTotal int64
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
	ix.avgLen = map[string]float64{}
	for _, table := range []string{"words", "grams"} {
		tokens, _ := strconv.ParseFloat(meta[table+"_tokens"], 64)
		ix.avgLen[table] = tokens / math.Max(float64(ix.values), 1)
	}
	return ix.loadColumns()
}

func (ix *index) loadColumns() error {
	rows, err := ix.db.Query("SELECT id, tbl, col, indexed, distinct_values, bound, long_skipped, tie_rows, tie_kept, tie_total FROM cols ORDER BY id")
	if err != nil {
		return fmt.Errorf("value index: columns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.id, &c.table, &c.name, &c.indexed, &c.distinct, &c.bound, &c.longSkipped, &c.tieRows, &c.tieKept, &c.tieTotal); err != nil {
			return fmt.Errorf("value index: columns: %w", err)
		}
		ix.cols = append(ix.cols, c)
	}
	return rows.Err()
}

func (ix *index) close() error { return ix.db.Close() }

// partial is how many columns the index holds in part.
func (ix *index) partial() int {
	n := 0
	for _, c := range ix.cols {
		if c.bound != "" {
			n++
		}
	}
	return n
}

// search answers q: BM25 over the words, plus BM25 over the trigrams,
// summed per value; the best q.Limit values, ties to the value held by
// more rows, then to the one indexed first. Its work is bounded whatever
// the size of the index (maxQueryWords, maxQueryGrams, maxComparisons,
// maxScored); w records it and what the bounds cut.
func (ix *index) search(ctx context.Context, q env.ValueQuery, w *work) (*env.ValueMatches, error) {
	cols, err := ix.narrow(q.Table, q.Column)
	if err != nil {
		return nil, err
	}
	out := ix.report(cols)
	var ws, gs []string
	ws, w.wordsCut = words(cut(q.Query, env.MaxValueQueryChars), maxQueryWords)
	gs, w.gramsCut = grams(ws, maxQueryGrams)
	terms, err := ix.lookup(ctx, ws, w)
	if err != nil {
		return nil, err
	}
	gterms, err := ix.gramTerms(ctx, gs)
	if err != nil {
		return nil, err
	}
	scores := map[int64]float64{}
	if err := ix.score(ctx, distinct(append(terms, gterms...)), cols, scores, w); err != nil {
		return nil, err
	}
	out.Matches, err = ix.best(ctx, scores, max(q.Limit, 1))
	out.Cut = w.notes()
	return out, err
}

// gramTerms are the trigrams gs with the number of values that hold
// each; those no value holds are left out.
func (ix *index) gramTerms(ctx context.Context, gs []string) ([]term, error) {
	var out []term
	for _, g := range gs {
		var docs int64
		err := ix.db.QueryRowContext(ctx, "SELECT docs FROM gram_docs WHERE gram = ?", g).Scan(&docs)
		switch {
		case err == nil:
			out = append(out, term{table: "grams", text: g, docs: docs})
		case !isNoRows(err):
			return nil, fmt.Errorf("value index: trigrams: %w", err)
		}
	}
	return out, nil
}

// distinct is terms without repeats, in order.
func distinct(terms []term) []term {
	seen := map[term]bool{}
	out := terms[:0:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

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
	out := &env.ValueMatches{Matches: []env.ValueMatch{}}
	for _, c := range ix.cols {
		if cols != nil && !cols[c.id] {
			continue
		}
		if c.bound != "" {
			out.Partial = append(out.Partial, env.PartialColumn{Table: c.table, Column: c.name,
				Indexed: c.indexed, Distinct: c.distinct, Bound: c.bound,
				TieRows: c.tieRows, TieKept: c.tieKept, TieTotal: c.tieTotal})
		}
		out.LongSkipped += c.longSkipped
	}
	return out
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
