package valueindex

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// builder writes one database's index.
type builder struct {
	cfg      Config
	db       env.DB
	dialect  env.Dialect
	tx       *sql.Tx
	ins      []*sql.Stmt // the value, its words, its trigrams
	deadline time.Time
	nextVal  int64
	nwords   int64 // words of every value, added up
	ngrams   int64 // trigrams of every value, added up
	cost     int64 // charged against MaxBytes so far
}

// buildCol is one column of the database as the build indexes it.
type buildCol struct {
	id          int64 // its row of cols: 1, 2, ... in order
	table, name string
	text        bool      // it may hold text (every column in SQLite)
	cut         *cutPoint // where it was cut; nil when whole
	indexed     int64     // values indexed
	distinct    int64     // distinct text values it holds
	long        int64     // of them, longer than MaxValueChars
	cost, need  int64     // the cost of the values indexed, and of all it could index
	bound       string
}

// insertSQL are the statements that add one value, prepared once per
// build.
var insertSQL = []string{
	"INSERT INTO vals(id, col_id, value, nrows, nwords, ngrams) VALUES (?, ?, ?, ?, ?, ?)",
	"INSERT INTO words(docid, body) VALUES (?, ?)",
	"INSERT INTO grams(docid, body) VALUES (?, ?)",
}

func (b *builder) prepare(ctx context.Context) error {
	for _, q := range insertSQL {
		st, err := b.tx.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("value index: %w", err)
		}
		b.ins = append(b.ins, st)
	}
	return nil
}

func (b *builder) close() {
	for _, st := range b.ins {
		st.Close()
	}
}

// index indexes every column of every table, tables in name order,
// within Config.MaxBytes as budget.go shares it, and records each column
// with what it holds and how it was cut.
func (b *builder) index(ctx context.Context) error {
	tables, err := b.db.Tables(ctx)
	if err != nil {
		return fmt.Errorf("value index: list tables: %w", err)
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	var cols []*buildCol
	textCols := 0
	for _, t := range tables {
		for _, c := range t.Columns {
			cols = append(cols, &buildCol{id: int64(len(cols) + 1), table: t.Name, name: c.Name, text: isText(b.dialect, c.Type)})
			if cols[len(cols)-1].text {
				textCols++
			}
		}
	}
	reserve, later := reserveFor(b.cfg.MaxBytes, textCols), int64(textCols)
	for _, c := range cols {
		if !c.text {
			continue
		}
		later--
		if err := b.take(ctx, c, b.cfg.MaxBytes-b.cost-reserve*later, false); err != nil {
			return err
		}
	}
	if err := b.refill(ctx, cols); err != nil {
		return err
	}
	for _, c := range cols {
		var tie cutPoint
		if c.cut != nil {
			tie = *c.cut
		}
		_, err := b.tx.ExecContext(ctx, "INSERT INTO cols(id, tbl, col, indexed, distinct_values, bound, long_skipped, tie_rows, tie_kept, tie_total) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			c.id, c.table, c.name, c.indexed, c.distinct, c.bound, c.long, tie.rows, tie.kept, tie.total)
		if err != nil {
			return fmt.Errorf("value index: %w", err)
		}
	}
	return nil
}

// refill shares what is left of MaxBytes among the columns that bound
// cut, by what each lacks (waterFill), and reads each again from where
// it was cut.
func (b *builder) refill(ctx context.Context, cols []*buildCol) error {
	var cut []*buildCol
	var needs []int64
	for _, c := range cols {
		if c.bound == b.cfg.boundBytes() {
			cut, needs = append(cut, c), append(needs, c.need-c.cost)
		}
	}
	extra := waterFill(b.cfg.MaxBytes-b.cost, needs)
	for i, c := range cut {
		if extra[i] >= entryBytes+textBytes { // room for a value of one byte at least
			if err := b.take(ctx, c, c.cost+extra[i], true); err != nil {
				return err
			}
		}
	}
	return nil
}

// take indexes column c's distinct text values, most frequent first,
// while their cost fits allow and the other bounds: each group of values
// held by as many rows is read whole, and the first that does not fit
// whole keeps those of least tie key that fit and cuts the column there
// (c.cut, c.bound). A first read goes on past the cut to count what the
// column holds; a second (again) passes over the values the first kept
// and stops at its own cut.
func (b *builder) take(ctx context.Context, c *buildCol, allow int64, again bool) error {
	r := &colReader{b: b, c: c, ctx: ctx, allow: allow, again: again, before: c.cut}
	c.bound, c.cut = "", nil
	err := b.stream(ctx, c.table, c.name, r.add)
	if err == nil && r.err == nil && r.g != nil {
		r.close()
	}
	if err == nil {
		err = r.err
	}
	return err
}

// colReader reads one column's values for take.
type colReader struct {
	b       *builder
	c       *buildCol
	ctx     context.Context
	allow   int64
	again   bool
	before  *cutPoint // where the first read cut the column (again)
	g       *tieGroup // the group being read
	stopped bool      // the column is cut: what follows is only counted
	err     error
}

// add reads one value held by rows rows (nil: too long), and says
// whether to read on.
func (r *colReader) add(v any, rows int64) bool {
	c := r.c
	if r.g != nil && rows != r.g.rows && !r.close() {
		return false
	}
	s, ok := v.(string)
	if !r.again {
		c.distinct++
		if !ok {
			c.long++
		}
	}
	if r.stopped {
		if ok {
			c.need += valueCost(s)
		}
		return true
	}
	if r.g == nil {
		r.g = r.group(rows)
	}
	r.g.total++
	if !ok {
		return true
	}
	if ws, _ := words(s, maxValueWords); len(ws) == 0 {
		return true // no search could find it: passed over, costing nothing
	}
	cost := valueCost(s)
	if !r.again {
		c.need += cost
	}
	if k := keyOf(s); r.before != nil && r.before.has(rows, k) {
		r.g.keptBefore++
	} else {
		r.g.offer(k, cost, r.b.cfg.boundBytes(), r.countBound())
	}
	return true
}

// group starts a group of values held by rows rows, with the room the
// column has left.
func (r *colReader) group(rows int64) *tieGroup {
	b, c := r.b, r.c
	g := &tieGroup{rows: rows, room: min(r.allow-c.cost, b.cfg.MaxBytes-b.cost), count: -1}
	if b.cfg.MaxDistinct > 0 {
		g.count = int64(b.cfg.MaxDistinct) - c.indexed
	}
	if b.cfg.MaxValues > 0 && (g.count < 0 || int64(b.cfg.MaxValues)-b.nextVal < g.count) {
		g.count = int64(b.cfg.MaxValues) - b.nextVal
	}
	g.count = max(g.count, -1)
	return g
}

// countBound names the count bound that is the tighter for column c now.
func (r *colReader) countBound() string {
	b, c := r.b, r.c
	if b.cfg.MaxDistinct > 0 && (b.cfg.MaxValues <= 0 || int64(b.cfg.MaxDistinct)-c.indexed <= int64(b.cfg.MaxValues)-b.nextVal) {
		return b.cfg.boundDistinct()
	}
	return b.cfg.boundValues()
}

// close indexes what the group being read kept, and cuts the column
// there when it did not keep the whole group; it says whether to read
// on.
func (r *colReader) close() bool {
	g := r.g
	r.g = nil
	for _, k := range g.inOrder() {
		ws, _ := words(k.text, maxValueWords)
		if r.err = r.b.insert(r.ctx, r.c, k.text, g.rows, ws); r.err != nil {
			return false
		}
	}
	if g.cutAt == nil {
		return true
	}
	r.c.bound = g.bound
	r.c.cut = &cutPoint{rows: g.rows, above: *g.cutAt, kept: g.keptBefore + int64(len(g.kept)), total: g.total}
	r.stopped = true
	return !r.again
}

// insert adds one value of column c, held by rows rows, with its words.
func (b *builder) insert(ctx context.Context, c *buildCol, v string, rows int64, ws []string) error {
	gs := first(grams(ws, maxValueGrams))
	b.nextVal++
	id := b.nextVal
	b.nwords += int64(len(ws))
	b.ngrams += int64(len(gs))
	cost := valueCost(v)
	c.indexed++
	c.cost += cost
	b.cost += cost
	args := [][]any{{id, c.id, v, rows, len(ws), len(gs)}, {id, strings.Join(ws, " ")}, {id, strings.Join(gs, " ")}}
	for i, st := range b.ins {
		if _, err := st.ExecContext(ctx, args[i]...); err != nil {
			return fmt.Errorf("value index: insert: %w", err)
		}
	}
	return nil
}

// stream hands a column's distinct text values with their row counts to
// each, most frequent first (values held by as many rows in the order of
// their text, which take reorders by tie key); a value over
// MaxValueChars comes as nil. An engine that
// cannot stream (env.RowStreamer) reads them as one result.
func (b *builder) stream(ctx context.Context, table, column string, each func(v any, rows int64) bool) error {
	c, t := quoted(column), quoted(table)
	filter := c + " IS NOT NULL"
	if b.dialect == env.SQLite {
		filter = "typeof(" + c + ") = 'text'" // SQLite keeps a type per value
	}
	q := fmt.Sprintf("SELECT CASE WHEN length(%[1]s) <= %[3]d THEN %[1]s END, count(*) FROM %[2]s WHERE %[4]s GROUP BY %[1]s ORDER BY count(*) DESC, %[1]s",
		c, t, b.cfg.MaxValueChars, filter)
	lim := env.Limits{MaxCellBytes: 4*b.cfg.MaxValueChars + 4, Timeout: time.Until(b.deadline)}
	if b.deadline.IsZero() {
		lim.Timeout = DefaultBuildTimeout
	}
	var err error
	if s, ok := b.db.(env.RowStreamer); ok {
		err = s.QueryEach(ctx, q, lim, func(row []any) bool { return each(row[0], count(row[1])) })
	} else {
		var rs *env.ResultSet
		if rs, err = b.db.Query(ctx, q, lim); err == nil {
			for _, row := range rs.Rows {
				if !each(row[0], count(row[1])) {
					break
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("value index: read %s.%s: %w", table, column, err)
	}
	return nil
}
