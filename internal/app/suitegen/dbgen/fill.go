package dbgen

import (
	"context"
	"fmt"
	"strings"
)

// Bounds on the work of filling a table whose keys leave few rows
// possible (a small parent, a tight composite key).
const (
	rowTries     = 8  // draws of one row before it counts as failed
	failedInARow = 16 // failed rows in a row that end a table
)

// fill writes a table's rows: as many as its drawn size, fewer when its
// keys or parents allow no more.
func (g *generation) fill(ctx context.Context, w *writer, ti int) error {
	t := g.p.s.tables[ti]
	target := g.size(ti)
	g.stats.Rows[t.name] = 0
	if target == 0 || g.starved(ti) {
		return nil
	}
	in, err := w.inserter(t)
	if err != nil {
		return err
	}
	defer in.close()
	seen := newKeySet(t.keys)
	for failed, tries := 0, 0; len(g.rows[ti]) < target && failed < failedInARow && tries < 4*target+64; tries++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("dbgen: %w", err)
		}
		row, ok := g.row(ti, seen)
		if ok {
			if ok, err = in.insert(row); err != nil {
				return err
			}
			if !ok {
				g.stats.Refused++
			}
		}
		if !ok {
			failed++
			continue
		}
		failed = 0
		seen.add(row)
		g.rows[ti] = append(g.rows[ti], row)
	}
	g.stats.Rows[t.name] = len(g.rows[ti])
	return nil
}

// row draws a row whose keys are new, trying a few times.
func (g *generation) row(ti int, seen keySet) ([]any, bool) {
	for attempt := range rowTries {
		if row, ok := g.draw(ti, attempt); ok && seen.free(row) {
			return row, true
		}
	}
	return nil, false
}

// starved reports whether a table can have no row: a key it must follow
// has a parent with no rows, and its columns may not be NULL.
func (g *generation) starved(ti int) bool {
	for _, fk := range g.p.sources[ti] {
		if fk.strict && fk.parent != ti && len(g.rows[fk.parent]) == 0 && !g.nullable(fk) {
			return true
		}
	}
	return false
}

// keySet holds the tuples a table's keys have taken.
type keySet struct {
	keys [][]int
	seen []map[string]bool
}

func newKeySet(keys [][]int) keySet {
	s := keySet{keys: keys, seen: make([]map[string]bool, len(keys))}
	for i := range s.seen {
		s.seen[i] = map[string]bool{}
	}
	return s
}

// free reports whether none of row's key tuples is taken. A tuple with a
// NULL in it never is: SQLite lets NULLs repeat in a UNIQUE key.
func (s keySet) free(row []any) bool {
	for i, k := range s.keys {
		if key, ok := tupleKey(row, k); ok && s.seen[i][key] {
			return false
		}
	}
	return true
}

// add takes row's key tuples.
func (s keySet) add(row []any) {
	for i, k := range s.keys {
		if key, ok := tupleKey(row, k); ok {
			s.seen[i][key] = true
		}
	}
}

// tupleKey is the text of row's values in cols, false when one is NULL.
func tupleKey(row []any, cols []int) (string, bool) {
	var b strings.Builder
	for _, c := range cols {
		if row[c] == nil {
			return "", false
		}
		b.WriteString(valueKey(row[c]))
		b.WriteByte(0)
	}
	return b.String(), true
}
