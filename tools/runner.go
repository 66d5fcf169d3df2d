package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// Config bounds what the tools show the model. Zero values take the
// defaults.
type Config struct {
	RowLimit         int           // rows shown to the model (default 50)
	ObservationBytes int           // cap on an observation's text, turns-left line included (default 8192)
	CellChars        int           // longest cell shown, in characters (default 200)
	SampleRows       int           // rows inspect_schema shows of a table (default 3)
	QueryTimeout     time.Duration // wall time of one statement (default 5s)
	// SchemaCacheBytes bounds the inspect_schema text kept per immutable
	// database (default DefaultSchemaCacheBytes); negative keeps none.
	SchemaCacheBytes int
	// DescribeSampleRows bounds the rows describe_column reads of a
	// table: a table with more is profiled from a sample of this many
	// (default DefaultDescribeSampleRows).
	DescribeSampleRows int
	// Values answers search_values; nil makes every search_values call
	// an unavailable error.
	Values env.ValueSearcher
}

// Defaults of Config.
const (
	DefaultRowLimit         = 50
	DefaultObservationBytes = 8192
	DefaultCellChars        = 200
	DefaultSampleRows       = 3
	DefaultQueryTimeout     = 5 * time.Second
)

// tailReserve is the room content renderers leave at the end of an
// observation for the turns-left line.
const tailReserve = 32

func (c Config) withDefaults() Config {
	if c.RowLimit <= 0 {
		c.RowLimit = DefaultRowLimit
	}
	if c.ObservationBytes <= 0 {
		c.ObservationBytes = DefaultObservationBytes
	}
	if c.CellChars <= 0 {
		c.CellChars = DefaultCellChars
	}
	if c.SampleRows <= 0 {
		c.SampleRows = DefaultSampleRows
	}
	if c.QueryTimeout <= 0 {
		c.QueryTimeout = DefaultQueryTimeout
	}
	if c.SchemaCacheBytes == 0 {
		c.SchemaCacheBytes = DefaultSchemaCacheBytes
	}
	if c.DescribeSampleRows <= 0 {
		c.DescribeSampleRows = DefaultDescribeSampleRows
	}
	return c
}

// Runner runs the model's tools against a database and renders what they
// return. It holds its configuration and the inspect_schema text of the
// immutable databases it was handed (see Inspect), and is safe for
// concurrent use.
type Runner struct {
	cfg    Config       // read-only after NewRunner
	schema *schemaCache // shared by every caller
}

// NewRunner returns a Runner with cfg's zero values set to the defaults.
func NewRunner(cfg Config) *Runner {
	cfg = cfg.withDefaults()
	return &Runner{cfg: cfg, schema: newSchemaCache(cfg.SchemaCacheBytes)}
}

// Config returns the runner's configuration, defaults applied.
func (r *Runner) Config() Config { return r.cfg }

// Limits are the env.Limits every execute_sql statement runs under: the
// query timeout, RowLimit rows (one more is read to tell whether there
// were more), cells cut past what CellChars characters can take in UTF-8
// (rendering cuts them at CellChars anyway), and rows adding up to at most
// 64 observations.
func (r *Runner) Limits() env.Limits {
	return env.Limits{
		Timeout:        r.cfg.QueryTimeout,
		MaxRows:        r.cfg.RowLimit,
		MaxCellBytes:   4*r.cfg.CellChars + 4,
		MaxResultBytes: 64 * r.cfg.ObservationBytes,
	}
}

// Result is what a tool call produced for the model.
type Result struct {
	// Content is the observation text, without the turns-left line.
	Content string
	// Error is set when the call failed in a way the model caused.
	Error *schemas.ToolError
	// Info is the machine-readable result of execute_sql: the rows shown
	// (JSON-safe values), their count, whether more were there, the time.
	Info *schemas.ResultInfo
	// Meta is Info without its rows, what a trajectory step records of
	// the result (Info.Meta, made with it).
	Meta *schemas.ResultMeta
	// Rows is the raw result, for the caller; nil on error.
	Rows *env.ResultSet
	// Submitted is the SQL of a call that ends the episode (submit): the
	// caller scores it; nothing else is set.
	Submitted *string
}

// Execute runs execute_sql: one statement under the runner's limits. A
// *env.QueryError becomes Result.Error with the matching code and the
// engine's message in Content; any other error is the server's and is
// returned.
func (r *Runner) Execute(ctx context.Context, db env.DB, a *ExecuteSQLArgs) (Result, error) {
	rs, err := db.Query(ctx, a.SQL, r.Limits())
	if err != nil {
		return r.failure("execute sql", err)
	}
	info, meta := r.resultInfo(rs)
	return Result{Content: r.RenderRows(rs), Info: info, Meta: meta, Rows: rs}, nil
}

// resultInfo returns the info of rs and its meta (info.Meta), made in
// one allocation: every execute_sql step needs both.
func (r *Runner) resultInfo(rs *env.ResultSet) (*schemas.ResultInfo, *schemas.ResultMeta) {
	rows := rs.Rows
	if len(rows) > r.cfg.RowLimit {
		rows = rows[:r.cfg.RowLimit]
	}
	m := Meta(rs)
	m.RowCount, m.Truncated = len(rows), rs.Truncated || len(rs.Rows) > len(rows)
	both := &struct {
		info schemas.ResultInfo
		meta schemas.ResultMeta
	}{info: schemas.ResultInfo{Columns: m.Columns, Rows: JSONRows(rows),
		RowCount: m.RowCount, Truncated: m.Truncated, ElapsedMS: m.ElapsedMS}}
	both.meta = *both.info.Meta()
	return &both.info, &both.meta
}

// Meta describes a result set without its rows: its columns (a copy),
// the rows it holds, whether more were there, and the statement's time.
// It is the one conversion of a result's metadata: the reply's
// info.result carries it with the rows shown, and a trajectory step's
// result_meta carries it alone.
func Meta(rs *env.ResultSet) *schemas.ResultMeta {
	return &schemas.ResultMeta{
		Columns: append([]string{}, rs.Columns...), RowCount: len(rs.Rows), Truncated: rs.Truncated,
		ElapsedMS: schemas.Milliseconds(rs.Elapsed),
	}
}

// failure turns a query's error into a Result, or returns it wrapped when
// it is not the model's.
func (r *Runner) failure(op string, err error) (Result, error) {
	var qe *env.QueryError
	if !errors.As(err, &qe) {
		return Result{}, fmt.Errorf("%s: %w", op, err)
	}
	te := &schemas.ToolError{Code: ErrorCode(qe), Message: qe.Message}
	return Result{Content: clip("Error: "+qe.Message, r.budget()), Error: te}, nil
}

// ErrorCode is the schemas.ErrCode* of a query error's kind; sql_error for
// a kind it does not know.
func ErrorCode(qe *env.QueryError) string {
	switch {
	case errors.Is(qe, env.ErrTimeout):
		return schemas.ErrCodeTimeout
	case errors.Is(qe, env.ErrDenied):
		return schemas.ErrCodeDenied
	case errors.Is(qe, env.ErrMultiStatement):
		return schemas.ErrCodeMultiStatement
	case errors.Is(qe, env.ErrTooLarge):
		return schemas.ErrCodeTooLarge
	case errors.Is(qe, env.ErrNoSuchTable):
		return schemas.ErrCodeNoSuchTable
	case errors.Is(qe, env.ErrNoSuchColumn):
		return schemas.ErrCodeNoSuchColumn
	case errors.Is(qe, env.ErrUnavailable):
		return schemas.ErrCodeUnavailable
	}
	return schemas.ErrCodeSQL
}

// budget is the bytes content renderers may use: the observation cap less
// room for the turns-left line.
func (r *Runner) budget() int {
	return max(r.cfg.ObservationBytes-tailReserve, r.cfg.ObservationBytes/2)
}
