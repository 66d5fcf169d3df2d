package dbimport

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/reward"
)

// Categories of an imported task's gold.
const (
	// Kept: the SQLite gold runs on PostgreSQL as written and returns
	// SQLite's rows.
	Kept = "kept"
	// Rewritten: the rewrite returns SQLite's rows.
	Rewritten = "rewritten"
	// AnswerOnly: no PostgreSQL gold was verified; the task is scored
	// against the rows SQLite's gold returns.
	AnswerOnly = "answer_only"
	// Unusable: the SQLite gold itself fails (or returns too many rows to
	// keep); the task is left out of the imported dataset.
	Unusable = "unusable"
)

// VerifyTolerance is the relative tolerance within which a number of the
// rewrite's rows equals SQLite's (an average computed in numeric
// arithmetic against SQLite's double, say).
const VerifyTolerance = 1e-9

// ReasonTieOrder is the reason of an AnswerOnly task whose rewrite
// returns SQLite's rows in another order: rows tied under its ORDER BY,
// which each engine returns in its own order.
const ReasonTieOrder = "the rewrite returns SQLite's rows in another order (ties under ORDER BY)"

// maxRepairs bounds the GROUP BY repairs tried on one gold.
const maxRepairs = 4

// Gold is what the import made of one task's gold.
type Gold struct {
	Category string
	// SQL is the PostgreSQL gold (Kept, Rewritten); empty otherwise.
	SQL string
	// Answer is the rows the SQLite gold returns.
	Answer [][]any
	// Rules are the rewrite rules applied (Rewritten, and AnswerOnly
	// where a rewrite was tried).
	Rules []string
	// Reason says why the gold is AnswerOnly or Unusable.
	Reason string
	// Tried is the PostgreSQL statement that was run and not kept
	// (AnswerOnly); empty otherwise.
	Tried string
	// Segments are every right answer of an AnswerOnly task whose SQLite
	// gold has ties (answerSegments); nil otherwise.
	Segments []reward.Segment
}

// Querier runs one statement: an env.DB.
type Querier interface {
	Query(ctx context.Context, sql string, lim env.Limits) (*env.ResultSet, error)
}

// Verifier runs golds on both sides.
type Verifier struct {
	Limits env.Limits // for both sides; MaxRows bounds the rows an answer keeps
	// Rewrite turns a SQLite gold into the target's dialect; nil means
	// Rewrite (PostgreSQL's).
	Rewrite func(sql string, s *Schema) (string, []string)
	// Target names the engine in reasons; "" means "PostgreSQL".
	Target string
}

// Verify runs sqliteGold on src, rewrites it for schema s, runs the
// rewrite on dst (the task's PostgreSQL schema or MySQL database) and keeps it when its rows
// match, repairing the GROUP BY errors PostgreSQL names on the way. An
// error is returned only for faults of neither gold (a lost connection).
func (v *Verifier) Verify(ctx context.Context, src, dst Querier, s *Schema, sqliteGold string) (*Gold, error) {
	want, err := src.Query(ctx, sqliteGold, v.Limits)
	var qe *env.QueryError
	switch {
	case errors.As(err, &qe):
		return &Gold{Category: Unusable, Reason: "the SQLite gold fails: " + qe.Message}, nil
	case err != nil:
		return nil, fmt.Errorf("verify: run the SQLite gold: %w", err)
	case want.Truncated:
		return &Gold{Category: Unusable, Reason: fmt.Sprintf("the SQLite gold returns more than %d rows", v.Limits.MaxRows)}, nil
	}
	g := &Gold{Answer: want.Rows}
	rewrite, target := v.Rewrite, v.Target
	if rewrite == nil {
		rewrite = Rewrite
	}
	if target == "" {
		target = "PostgreSQL"
	}
	sql, rules := rewrite(sqliteGold, s)
	got, err := dst.Query(ctx, sql, v.Limits)
	for i := 0; i < maxRepairs && errors.As(err, &qe); i++ {
		fixed, ok := RepairGroupBy(sql, qe.Message)
		if !ok {
			break
		}
		sql, rules = fixed, appendRule(rules, RuleGroupBy)
		got, err = dst.Query(ctx, sql, v.Limits)
	}
	g.Rules = rules
	switch {
	case errors.As(err, &qe):
		g.Category, g.Reason, g.Tried = AnswerOnly, target+" refuses the rewrite: "+qe.Message, sql
	case err != nil:
		return nil, fmt.Errorf("verify: run the rewrite: %w", err)
	case got.Truncated || !reward.MatchTolerant(got.Rows, want.Rows, sqltext.HasOrderBy(sqliteGold), VerifyTolerance):
		g.Category, g.Reason, g.Tried = AnswerOnly, mismatchReason(got.Rows, want.Rows), sql
	case len(rules) == 0:
		g.Category, g.SQL = Kept, sql
	default:
		g.Category, g.SQL = Rewritten, sql
	}
	return g, nil
}

func appendRule(rules []string, rule string) []string {
	for _, r := range rules {
		if r == rule {
			return rules
		}
	}
	return append(rules, rule)
}

// mismatchReason says how the rewrite's rows differ from SQLite's.
func mismatchReason(got, want [][]any) string {
	switch {
	case len(got) != len(want):
		return fmt.Sprintf("the rewrite returns %d rows, SQLite's gold %d", len(got), len(want))
	case reward.MatchTolerant(got, want, false, VerifyTolerance):
		return ReasonTieOrder
	}
	return "the rewrite returns other rows than SQLite's gold (ties under ORDER BY ... LIMIT, or another value)"
}
