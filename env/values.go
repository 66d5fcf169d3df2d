package env

import "context"

// MaxValueQueryChars is the longest ValueQuery.Query, in characters:
// search_values refuses a longer query, and a ValueSearcher reads no
// further than this, so one call's memory does not grow with its query.
const MaxValueQueryChars = 1000

// ValueQuery asks where a literal value is stored: the phrase to look for,
// optionally narrowed to one table and one column, and how many matches
// to return.
type ValueQuery struct {
	Query  string
	Table  string // "" for every table
	Column string // "" for every column
	Limit  int
}

// ValueMatch is one stored value that matched a ValueQuery, with where it
// is stored, how many rows hold it, and its rank score (higher is better).
type ValueMatch struct {
	Table  string
	Column string
	Value  string
	Rows   int64
	Score  float64
}

// ValueMatches is the answer to a ValueQuery: the matches, best first, and
// what the index left out of the database, which the model is told.
type ValueMatches struct {
	Matches []ValueMatch
	// Partial are the columns searched whose distinct values the index
	// holds only in part, and how each was cut.
	Partial []PartialColumn
	// LongSkipped counts the values left out for being too long.
	LongSkipped int64
	// Cut says, a sentence each, what the bounds of one search left out
	// of this query (words past the cap, terms too common to score, an
	// unfinished typo pass), so the model is told.
	Cut []string
}

// PartialColumn is a column whose distinct text values the index holds
// only in part: its most frequent ones, as many as a bound left room for.
// The cut falls among the values held by TieRows rows: every value held
// by more rows is indexed and, of the TieTotal held by TieRows rows,
// TieKept (0 when the cut fell just before them), chosen by a hash of
// their text, so that they are an unbiased sample of the tie, the same
// at every build.
type PartialColumn struct {
	Table, Column string
	Indexed       int64  // distinct values indexed
	Distinct      int64  // distinct text values the column holds
	Bound         string // the bound that cut it, as a reply names it
	TieRows       int64  // the rows that hold each value of the tie the cut fell in
	TieKept       int64  // values of the tie indexed
	TieTotal      int64  // distinct values of the tie
}

// ValueSearcher finds stored values of the databases of datasets, by
// their text. It is safe for concurrent use.
type ValueSearcher interface {
	// SearchValues answers q over the database db_id of the dataset,
	// which is open as db. A table or column that does not exist is a
	// *QueryError of kind ErrNoSuchTable or ErrNoSuchColumn.
	SearchValues(ctx context.Context, ds *Dataset, dbID string, db DB, q ValueQuery) (*ValueMatches, error)
}
