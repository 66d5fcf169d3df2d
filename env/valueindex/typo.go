package valueindex

import (
	"context"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
)

// Bounds of the typo pass: how far a stored word may be from a query word
// that the database does not hold (1 edit up to shortWord letters, 2
// past), the longest query word it corrects, how many corrections a query
// adds at most, and how many stored words one search compares with its
// query words, whatever the size of the vocabulary.
const (
	shortWord      = 5
	maxTypoRunes   = 32
	maxCorrections = 48
	maxComparisons = 4096
)

// near is a stored word close to a query word.
type near struct {
	word string
	dist int
	docs int64
}

// lookup finds the query words the database holds, with their value
// counts, and corrects the others: the stored words one or two edits
// away from each, closest first, then the words more values hold. They
// let "Asja" find "Asia" and "dpg" find "dog", which share too few
// trigrams. The comparisons are shared fairly among the words to correct
// and stop at maxComparisons; w records how many were made and the words
// whose pass stopped short.
func (ix *index) lookup(ctx context.Context, ws []string, w *work) (terms []term, err error) {
	var missing []string
	for _, q := range ws {
		var docs int64
		err := ix.db.QueryRowContext(ctx, "SELECT docs FROM vocab WHERE len = ? AND word = ?", utf8.RuneCountInString(q), q).Scan(&docs)
		switch {
		case err == nil:
			terms = append(terms, term{table: "words", text: q, docs: docs})
		case isNoRows(err):
			if utf8.RuneCountInString(q) <= maxTypoRunes {
				missing = append(missing, q)
			}
		default:
			return nil, fmt.Errorf("value index: vocabulary: %w", err)
		}
	}
	fixes := 0
	for i, q := range missing {
		share := (maxComparisons - w.compared) / (len(missing) - i)
		found, short, err := ix.near(ctx, q, share, w)
		if err != nil {
			return nil, err
		}
		if short {
			w.typoShort = append(w.typoShort, q)
		}
		for _, c := range found {
			if fixes == maxCorrections {
				break
			}
			fixes++
			terms = append(terms, term{table: "words", text: c.word, docs: c.docs})
		}
	}
	return terms, nil
}

// near returns the stored words within the typo distance of q, comparing
// at most budget of them. A stored word within the distance keeps q's
// first or last part unchanged (with one edit, the half the edit is not
// in; with two, the first or last third, unless one edit is in each),
// so only the words of a near length that start with q's first part or
// end with its last are read, through the vocabulary's indexes. short
// reports that the budget ran out before every such word was compared.
func (ix *index) near(ctx context.Context, q string, budget int, w *work) (out []near, short bool, err error) {
	r := []rune(q)
	n := len(r)
	dist, head, tail := 1, max(1, n/2), n-max(1, n/2) // the halves
	if n > shortWord {
		dist, head, tail = 2, n/3, n/3 // the first and last thirds
	}
	prefix, suffix := string(r[:head]), reverse(string(r[n-tail:]))
	seen := map[string]bool{}
	for l := max(1, n-dist); l <= n+dist; l++ {
		for _, p := range []struct{ col, key string }{{"word", prefix}, {"rev", suffix}} {
			cs, more, err := ix.probe(ctx, l, p.col, p.key, budget-len(seen), seen, w)
			if err != nil {
				return nil, false, err
			}
			short = short || more
			for _, c := range cs {
				if c.dist = levenshtein.ComputeDistance(q, c.word); c.dist <= dist {
					out = append(out, c)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].dist != out[j].dist {
			return out[i].dist < out[j].dist
		}
		if out[i].docs != out[j].docs {
			return out[i].docs > out[j].docs
		}
		return out[i].word < out[j].word
	})
	return out, short, nil
}

// probe reads at most room stored words of length l whose column col
// (word, or rev for the reversed word) starts with key, leaving out those
// already seen; it counts them as compared in w, and reports whether
// there were more than room.
func (ix *index) probe(ctx context.Context, l int, col, key string, room int, seen map[string]bool, w *work) (out []near, more bool, err error) {
	if room <= 0 {
		return nil, true, nil
	}
	// A key's range: every text that starts with it sorts between key
	// and key followed by 0xff, a byte no UTF-8 text holds.
	rows, err := ix.db.QueryContext(ctx, fmt.Sprintf("SELECT word, docs FROM vocab WHERE len = ? AND %[1]s >= ? AND %[1]s < ? LIMIT ?", col),
		l, key, key+"\xff", room+1)
	if err != nil {
		return nil, false, fmt.Errorf("value index: vocabulary: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c near
		if err := rows.Scan(&c.word, &c.docs); err != nil {
			return nil, false, fmt.Errorf("value index: vocabulary: %w", err)
		}
		if seen[c.word] {
			continue
		}
		if len(out) == room {
			more = true
			break
		}
		seen[c.word] = true
		w.compared++
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("value index: vocabulary: %w", err)
	}
	return out, more, nil
}
