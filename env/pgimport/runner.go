package pgimport

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sqlgym/sqlgym/env"
)

// Runner runs golds on an imported schema, for verification: each in a
// READ ONLY transaction that is always rolled back, with the schema as
// the search path and a local statement_timeout. It is the import's own
// runner for the SQL it wrote, not a sandbox for a model's SQL (that is
// env/postgres's job). Values come back as SQLite's would (int64,
// float64, string, []byte, nil; booleans as 1 and 0), so the reward
// package's matchers compare them with the rows SQLite returned.
type Runner struct {
	Conn    *pgx.Conn
	Schema  string
	Timeout time.Duration // per statement; 0 means 30 seconds
}

// Query runs one statement. A statement PostgreSQL refuses or stops is a
// *env.QueryError carrying its message.
func (r *Runner) Query(ctx context.Context, sql string, lim env.Limits) (*env.ResultSet, error) {
	timeout := r.Timeout
	if lim.Timeout > 0 {
		timeout = lim.Timeout
	}
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tx, err := r.Conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("run on %s: %w", r.Schema, err)
	}
	defer tx.Rollback(ctx)
	setup := fmt.Sprintf("SET LOCAL search_path TO %s; SET LOCAL statement_timeout = %d",
		quotePG(r.Schema), timeout.Milliseconds())
	if _, err := tx.Exec(ctx, setup); err != nil {
		return nil, fmt.Errorf("run on %s: %w", r.Schema, err)
	}
	start := time.Now()
	rows, err := tx.Query(ctx, sql, pgx.QueryExecModeExec)
	if err != nil {
		return nil, queryError(err)
	}
	rs, err := readResult(rows, lim.MaxRows)
	if err != nil {
		return nil, queryError(err)
	}
	rs.Elapsed = time.Since(start)
	return rs, nil
}

// queryError turns PostgreSQL's refusal into a *env.QueryError; anything
// else (a lost connection) stays the runner's error.
func queryError(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	kind := env.ErrSQL
	if pe.Code == "57014" { // query_canceled: statement_timeout
		kind = env.ErrTimeout
	}
	return env.NewQueryError(kind, pe.Message)
}

// readResult reads every row (at most maxRows, 0: all), converting values.
func readResult(rows pgx.Rows, maxRows int) (*env.ResultSet, error) {
	defer rows.Close()
	rs := &env.ResultSet{}
	for _, f := range rows.FieldDescriptions() {
		rs.Columns = append(rs.Columns, f.Name)
	}
	for rows.Next() {
		if maxRows > 0 && len(rs.Rows) == maxRows {
			rs.Truncated = true
			break
		}
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		for i, v := range vals {
			vals[i] = sqliteValue(v)
		}
		rs.Rows = append(rs.Rows, vals)
	}
	return rs, rows.Err()
}

// sqliteValue converts a decoded PostgreSQL value into the value SQLite
// would hold for it.
func sqliteValue(v any) any {
	switch v := v.(type) {
	case nil, int64, float64, string, []byte:
		return v
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case float32:
		return float64(v)
	case bool:
		if v {
			return int64(1)
		}
		return int64(0)
	case pgtype.Numeric:
		return numericValue(v)
	case time.Time:
		return v.Format("2006-01-02 15:04:05")
	}
	return fmt.Sprint(v)
}

// numericValue is an integral numeric that fits as an int64, any other
// as the nearest float64.
func numericValue(n pgtype.Numeric) any {
	if !n.Valid {
		return nil
	}
	if n.NaN {
		return math.NaN()
	}
	if n.Exp >= 0 && n.Int != nil {
		if i, err := n.Int64Value(); err == nil && i.Valid {
			return i.Int64
		}
	}
	f, err := n.Float64Value()
	if err != nil || !f.Valid {
		return nil
	}
	return f.Float64
}
