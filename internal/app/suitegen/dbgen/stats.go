package dbgen

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// valueKind is what a column's values are, beyond their storage class:
// it decides how fresh values are made and how a value is perturbed.
type valueKind uint8

// The kinds of values.
const (
	kindInt      valueKind = iota // integers
	kindReal                      // reals, or integers and reals
	kindText                      // text
	kindTextInt                   // text that all reads as integers ("2014")
	kindTextReal                  // text that all reads as numbers ("7.57")
	kindDate                      // text that all reads as dates in one layout
	kindBlob                      // blobs: drawn from the sample only
)

// kindNames name the kinds in reports.
var kindNames = [...]string{"integer", "real", "text", "text holding integers", "text holding numbers", "date", "blob"}

// colStats is what the source's values of one column show.
type colStats struct {
	classes  classSet // the storage classes of its non-NULL values
	primary  class    // the class most of them have (or the affinity's, when none)
	nulls    int      // NULLs among the rows read
	scanned  int      // rows read
	sample   []any    // distinct non-NULL values, evenly spread over their sorted order
	texts    []string // the texts among them
	kind     valueKind
	layout   string  // kindDate: the layout of its texts
	from, to int64   // kindDate: the range of its dates, in Unix seconds
	lo, hi   float64 // numeric kinds: the sample's range
	decimals int     // numeric kinds: the most digits after the point
	minLen   int     // text kinds: the shortest sample, in characters
	maxLen   int     // text kinds: the longest
}

// nullShare is the share of NULLs among the rows read.
func (s *colStats) nullShare() float64 {
	if s.scanned == 0 {
		return 0
	}
	return float64(s.nulls) / float64(s.scanned)
}

// readStats reads the row count, every column's storage classes and NULLs,
// and its sample of distinct values.
func (t *table) readStats(ctx context.Context, conn *sql.Conn, sampleValues int) error {
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(t.name)).Scan(&t.rows); err != nil {
		return fmt.Errorf("dbgen: rows of %s: %w", t.name, err)
	}
	if err := t.readClasses(ctx, conn); err != nil {
		return err
	}
	for _, c := range t.columns {
		all, err := t.distinct(ctx, conn, c.name)
		if err != nil {
			return err
		}
		c.stats.sample = spread(all, sampleValues)
		c.stats.describe()
	}
	return nil
}

// readClasses counts, in one scan of the first scanRows rows, each
// column's NULLs and storage classes.
func (t *table) readClasses(ctx context.Context, conn *sql.Conn) error {
	var b strings.Builder
	b.WriteString("SELECT count(*)")
	for _, c := range t.columns {
		q := quoteIdent(c.name)
		fmt.Fprintf(&b, ", coalesce(sum(%s IS NULL), 0)", q)
		for _, name := range classNames {
			fmt.Fprintf(&b, ", coalesce(sum(typeof(%s) = '%s'), 0)", q, name)
		}
	}
	fmt.Fprintf(&b, " FROM (SELECT * FROM %s LIMIT %d)", quoteIdent(t.name), scanRows)
	counts := make([]int, 1+len(t.columns)*(1+int(numClasses)))
	dest := make([]any, len(counts))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := conn.QueryRowContext(ctx, b.String()).Scan(dest...); err != nil {
		return fmt.Errorf("dbgen: values of %s: %w", t.name, err)
	}
	for i, c := range t.columns {
		at := 1 + i*(1+int(numClasses))
		c.stats.scanned, c.stats.nulls = counts[0], counts[at]
		c.stats.primary = fallbackClass(c.aff)
		best := 0
		for k := range numClasses {
			if n := counts[at+1+int(k)]; n > 0 {
				c.stats.classes = c.stats.classes.with(k)
				if n > best {
					best, c.stats.primary = n, k
				}
			}
		}
	}
	return nil
}

// distinct reads the distinct non-NULL values of a column among the first
// scanRows rows, in SQLite's order. The unary plus keeps the driver from
// turning the texts of a DATETIME column into times.
func (t *table) distinct(ctx context.Context, conn *sql.Conn, col string) ([]any, error) {
	q := fmt.Sprintf("SELECT DISTINCT +v FROM (SELECT %s AS v FROM %s LIMIT %d) WHERE v IS NOT NULL ORDER BY 1",
		quoteIdent(col), quoteIdent(t.name), scanRows)
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("dbgen: values of %s.%s: %w", t.name, col, err)
	}
	defer rows.Close()
	var out []any
	for rows.Next() {
		var v any
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("dbgen: values of %s.%s: %w", t.name, col, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("dbgen: values of %s.%s: %w", t.name, col, err)
	}
	return out, nil
}

// spread keeps n of the sorted values, evenly spaced, the first and the
// last among them.
func spread(all []any, n int) []any {
	if len(all) <= n {
		return all
	}
	out := make([]any, 0, n)
	for i := range n {
		out = append(out, all[i*(len(all)-1)/max(n-1, 1)])
	}
	return out
}

// describe derives the kind, range and lengths of the sample.
func (s *colStats) describe() {
	s.texts = texts(s.sample)
	s.kind = kindOf(s.primary, s.texts)
	s.lo, s.hi = math.Inf(1), math.Inf(-1)
	s.minLen, s.maxLen = math.MaxInt, 0
	for _, v := range s.sample {
		s.measure(v)
	}
	if s.lo > s.hi {
		s.lo, s.hi = 1, 100 // no numbers: a small range
	}
	if s.minLen > s.maxLen {
		s.minLen, s.maxLen = 3, 12
	}
	if s.kind == kindDate {
		s.layout = columnLayout(s.texts)
		s.from, s.to = dateRange(s.texts, s.layout)
	}
}

// measure widens the ranges with one sample value.
func (s *colStats) measure(v any) {
	text := valueText(v)
	if f, ok := number(v); ok {
		s.lo, s.hi = min(s.lo, f), max(s.hi, f)
		s.decimals = max(s.decimals, decimals(text))
	}
	if _, ok := v.(string); ok {
		n := utf8.RuneCountInString(text)
		s.minLen, s.maxLen = min(s.minLen, n), max(s.maxLen, n)
	}
}

// kindOf decides the kind of a column from its main class and the texts
// of its sample.
func kindOf(primary class, ts []string) valueKind {
	switch primary {
	case classInt:
		return kindInt
	case classReal:
		return kindReal
	case classBlob:
		return kindBlob
	}
	switch {
	case len(ts) == 0:
		return kindText
	case all(ts, func(s string) bool { _, ok := asClass(s, classInt); return ok && !strings.ContainsAny(s, ".eE") }):
		return kindTextInt
	case all(ts, looksNumeric):
		return kindTextReal
	case columnLayout(ts) != "":
		return kindDate
	}
	return kindText
}

// texts are the text values among vs.
func texts(vs []any) []string {
	var out []string
	for _, v := range vs {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// all reports whether f holds for every one of xs.
func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

// number is v as a number: an integer, a real, or a text that reads as one.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, ok := asClass(x, classReal)
		if ok {
			return f.(float64), true
		}
	}
	return 0, false
}

// decimals counts the digits after the point of a number's text.
func decimals(text string) int {
	i := strings.IndexByte(text, '.')
	if i < 0 || strings.ContainsAny(text, "eE") {
		return 0
	}
	return len(text) - i - 1
}
