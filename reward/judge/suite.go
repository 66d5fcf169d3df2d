package judge

import (
	"context"

	"github.com/sqlgym/sqlgym/env"
)

// SuiteDB is one database of a task's test suite: a database with the
// task database's schema and other rows, on which a right answer must
// still agree with the gold.
type SuiteDB struct {
	// Name names the database to people and in records, as the suite's
	// store lists it ("concert_singer/ts-0007").
	Name string
	// Key names it for the gold cache, among every database the judge
	// sees ("spider-dev~suite/concert_singer/ts-0007").
	Key string
	// DB is the database, opened read-only.
	DB env.DB
}

// Suites gives a task's test suite. Implementations are safe for
// concurrent use.
type Suites interface {
	// Suite returns the databases of task's suite, in the order they are
	// judged; none when the task has no suite. An error is the server's
	// fault (a suite database that cannot be opened).
	Suite(ctx context.Context, task *env.Task) ([]SuiteDB, error)
}

// Ties says how a gold whose ORDER BY leaves ties, or whose LIMIT cuts
// through them, is judged.
type Ties string

// The ways of judging ties.
const (
	// TiesOfficial runs both queries as written and compares the rows the
	// engine returned, as the official evaluators do: on an engine that
	// breaks ties in another order from run to run, the verdict can change.
	TiesOfficial Ties = "official"
	// TiesAny accepts every result the gold could rightly return: a
	// prediction is correct when it returns one of them, and what the
	// prediction itself leaves to tie order is settled by its own output
	// columns, so the verdict never depends on the order in which an
	// engine breaks ties.
	TiesAny Ties = "any"
)
