package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
)

var _ env.RowSpanner = (*db)(nil)

// spanQuery reads a table's pages now (its heap's size over the block
// size) and what the last VACUUM or ANALYZE counted: rows and pages
// (reltuples -1: never counted). Only an ordinary table has a span: a
// partitioned table's rows are in its partitions, a foreign table's
// elsewhere.
const spanQuery = `SELECT c.relkind = 'r', pg_catalog.pg_relation_size(c.oid) / pg_catalog.current_setting('block_size')::bigint,
  c.reltuples::float8, c.relpages::bigint
FROM pg_catalog.pg_class c WHERE ` + isTable + ` AND c.relname = $1::pg_catalog.name`

// RowSpan returns the span of table's pages: a row's position is the
// page of its ctid, and a range of pages is read by a TID range scan.
// Rows is scaled from the statistics of the last VACUUM or ANALYZE to
// the pages the table has now, as the planner does, or -1 when the
// table was never counted.
func (d *db) RowSpan(ctx context.Context, table string) (env.Span, error) {
	t, err := d.Describe(ctx, table, 0)
	if err != nil {
		return env.Span{}, err
	}
	rs, err := d.introspect(ctx, spanQuery, env.Limits{}, t.Name)
	if err != nil {
		return env.Span{}, fmt.Errorf("row span %s: %w", t.Name, err)
	}
	if len(rs.Rows) == 0 || rs.Rows[0][0] != true {
		return env.Span{Rows: -1}, nil
	}
	pages, _ := rs.Rows[0][1].(int64)
	tuples, _ := rs.Rows[0][2].(float64)
	counted, _ := rs.Rows[0][3].(int64)
	span := env.Span{
		Position: "((ctid::text)::point)[0]::bigint",
		Range:    "ctid >= '(%d,0)'::tid AND ctid < '(%d,0)'::tid",
		Lo:       0, Hi: pages, Shared: true, Unit: "page", Rows: -1,
	}
	if tuples >= 0 && counted > 0 {
		span.PerPosition = tuples / float64(counted)
		span.Rows = int64(span.PerPosition * float64(pages))
		return span, nil
	}
	// Never counted: count the rows of the first pages (a TID range
	// scan reads only those).
	probe := min(pages, probePages)
	q := fmt.Sprintf("SELECT count(*) FROM %s WHERE ctid < '(%d,0)'::tid", pgx.Identifier{d.schema, t.Name}.Sanitize(), probe)
	if rs, err = d.introspect(ctx, q, env.Limits{}); err != nil {
		return env.Span{}, fmt.Errorf("row span %s: %w", t.Name, err)
	}
	n, _ := rs.Rows[0][0].(int64)
	span.PerPosition = float64(max(n, 1)) / float64(max(probe, 1))
	return span, nil
}

// probePages is how many of a never-counted table's first pages RowSpan
// counts the rows of.
const probePages = 16
