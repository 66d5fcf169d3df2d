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
	text        bool  // it may hold text (every column in SQLite)
	read        int64 // rows of its values' stream taken up to where it was cut
	indexed     int64 // values indexed
	distinct    int64 // distinct text values it holds
	long        int64 // of them, longer than MaxValueChars
	cost, need  int64 // the cost of the values indexed, and of all it could index
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
		_, err := b.tx.ExecContext(ctx, "INSERT INTO cols(id, tbl, col, indexed, distinct_values, bound, long_skipped) VALUES (?, ?, ?, ?, ?, ?, ?)",
			c.id, c.table, c.name, c.indexed, c.distinct, c.bound, c.long)
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
// while their cost fits allow and the other bounds; the first that does
// not fit cuts the column (c.bound says why). A first read goes on past
// the cut to count what the column holds; a second (again) starts after
// the rows the first took and stops at its cut.
func (b *builder) take(ctx context.Context, c *buildCol, allow int64, again bool) error {
	var pos int64
	var ierr error
	skip, cut := c.read, false
	c.bound = ""
	err := b.stream(ctx, c.table, c.name, func(v any, rows int64) bool {
		pos++
		if again && pos <= skip {
			return true
		}
		if !again {
			c.distinct++
		}
		s, ok := v.(string)
		switch {
		case !ok: // too long
			if !again {
				c.long++
			}
		case cut:
			c.need += valueCost(s)
			return true
		default:
			var kept bool
			if kept, ierr = b.value(ctx, c, s, rows, allow, again); ierr != nil {
				return false
			}
			if !kept {
				cut = true
				return !again
			}
		}
		if !cut {
			c.read = pos
		}
		return true
	})
	if err == nil {
		err = ierr
	}
	return err
}

// value indexes one value of column c when it fits allow and the other
// bounds, and tells whether it did; a value without words is passed
// over (kept: it costs nothing and no search could find it).
func (b *builder) value(ctx context.Context, c *buildCol, v string, rows, allow int64, again bool) (bool, error) {
	ws, _ := words(v, maxValueWords)
	if len(ws) == 0 {
		return true, nil
	}
	cost := valueCost(v)
	if !again {
		c.need += cost
	}
	switch {
	case c.cost+cost > allow || b.cost+cost > b.cfg.MaxBytes:
		c.bound = b.cfg.boundBytes()
	case b.cfg.MaxDistinct > 0 && c.indexed >= int64(b.cfg.MaxDistinct):
		c.bound = b.cfg.boundDistinct()
	case b.cfg.MaxValues > 0 && b.nextVal >= int64(b.cfg.MaxValues):
		c.bound = b.cfg.boundValues()
	default:
		return true, b.insert(ctx, c, v, rows, ws)
	}
	return false, nil
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
// each, most frequent first, values held by as many rows in the order of
// their text; a value over MaxValueChars comes as nil. An engine that
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
