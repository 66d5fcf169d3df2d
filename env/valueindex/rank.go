package valueindex

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
)

// BM25's parameters, as Lucene and SQLite's FTS5 use them.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// maxScored bounds the values one search reads and scores, whatever the
// size of the index: the terms are taken rarest first while their values
// fit, the first that does not fit is read only in part, and the rest
// are left out (the reply says so).
const maxScored = 20_000

// term is one word or trigram a search looks up, in the full-text table
// that holds it, with the number of values that hold it.
type term struct {
	table string // "words" or "grams"
	text  string
	docs  int64
}

// plan chooses the terms to score within maxScored values: whole, rarest
// first, while their values fit; then the first term that does not fit,
// read for the values left (partial, with that count); the others are
// skipped.
func plan(terms []term) (whole []term, partial *term, room int64, skipped []term) {
	sorted := append([]term(nil), terms...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].docs < sorted[j].docs })
	room = maxScored
	for i, t := range sorted {
		switch {
		case t.docs == 0:
		case t.docs <= room:
			whole = append(whole, t)
			room -= t.docs
		case partial == nil && room > 0:
			partial = &sorted[i]
		default:
			skipped = append(skipped, t)
		}
	}
	return whole, partial, room, skipped
}

// score adds the BM25 score of every value that holds the terms to
// scores, within maxScored values (w records what was left out).
func (ix *index) score(ctx context.Context, terms []term, cols map[int64]bool, scores map[int64]float64, w *work) error {
	whole, partial, room, skipped := plan(terms)
	for _, t := range whole {
		if err := ix.rank(ctx, t, t.docs, cols, scores, w); err != nil {
			return err
		}
	}
	if partial != nil {
		w.common = append(w.common, *partial)
		if err := ix.rank(ctx, *partial, room, cols, scores, w); err != nil {
			return err
		}
	}
	w.common = append(w.common, skipped...)
	return nil
}

// rank adds the BM25 score of t in the first limit values that hold it,
// in the order they were indexed, to scores. A value's length (its
// number of words, or of trigrams) is stored beside it: FTS4's own
// matchinfo 'l' costs a lookup per row.
func (ix *index) rank(ctx context.Context, t term, limit int64, cols map[int64]bool, scores map[int64]float64, w *work) error {
	length := "nwords"
	if t.table == "grams" {
		length = "ngrams"
	}
	// FTS4 matches by the table's own name, not an alias. A term holds
	// only letters, digits or hex: quoting it is enough.
	q := fmt.Sprintf("SELECT %[1]s.docid, matchinfo(%[1]s, 'y'), v.col_id, v.%[2]s FROM %[1]s JOIN vals v ON v.id = %[1]s.docid WHERE %[1]s MATCH ? LIMIT ?",
		t.table, length)
	rows, err := ix.db.QueryContext(ctx, q, `"`+t.text+`"`, limit)
	if err != nil {
		return fmt.Errorf("value index: search: %w", err)
	}
	defer rows.Close()
	idf := math.Log(1 + (float64(ix.values)-float64(t.docs)+0.5)/(float64(t.docs)+0.5))
	avg := math.Max(ix.avgLen[t.table], 1)
	for rows.Next() {
		var id, col, n int64
		var info []byte
		if err := rows.Scan(&id, &info, &col, &n); err != nil {
			return fmt.Errorf("value index: search: %w", err)
		}
		w.scored++
		if (cols == nil || cols[col]) && len(info) >= 4 {
			tf := float64(binary.NativeEndian.Uint32(info))
			scores[id] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(n)/avg))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("value index: search: %w", err)
	}
	return nil
}
