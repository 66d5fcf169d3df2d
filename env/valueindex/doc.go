// Package valueindex finds where a literal value is stored in a database:
// the search behind search_values. For each database it keeps an index
// file under a directory of its own (never beside the database, whose
// files stay read-only and unchanged) holding the distinct text values of
// every column with their table, column and row count, and two full-text
// indexes over them: the values' words, and the trigrams of those words,
// which make a search tolerant of small typos.
//
// The index is SQLite's FTS4 (compiled into every build of
// mattn/go-sqlite3; FTS5 needs a build tag that every go build, go test
// and go install of the project would have to carry). Words and trigrams
// are made in Go, after folding case and accents, so the index and the
// query read text the same way; the ranking is Okapi BM25 (k1 1.2,
// b 0.75), computed from FTS4's matchinfo, and a value's score is the sum
// of its word and trigram scores: an exact value outranks a value that
// shares one word with the query, and a value one typo away still shares
// most of its trigrams.
//
// Values are read through env.DB with plain SELECTs, so every engine is
// indexed the same way (PostgreSQL's text columns as SQLite's), and
// handed over one at a time where the engine can (env.RowStreamer), so a
// build holds at most the values of one frequency (values held by as many
// rows) that fit the room its column has left. An index
// is rebuilt only when its database changes: a file's path, size and
// modification time, or a connection string, key it; a second start
// reads the index it finds and writes nothing. Files are written whole to
// a temporary name, synced and renamed.
//
// Bounds (Config): values longer than MaxValueChars are left out and
// counted; one database's index file is about MaxBytes at most, each
// value charged what it adds to the file (budget.go); within it every
// distinct text value of every column is indexed. A database that needs
// more is shared out: each column cut keeps its most frequent values
// within a fair share (budget.go says how), and of the values held by as
// many rows where the cut falls, a sample by a hash of their text
// (ties.go), never the first in text order; it records how many of how
// many it holds, and of the tie. MaxDistinct and MaxValues bound counts too when set,
// and a build stops at BuildTimeout. Searches name the columns cut and
// what cut them, so the model is told.
//
// One search's work does not grow with the index: it takes the query's
// first maxQueryWords words and maxQueryGrams trigrams, its typo pass
// compares at most maxComparisons stored words (read through indexes of
// the vocabulary by the query word's first or last part), and it scores
// at most maxScored values, rarest terms first; the reply says what a
// bound cut. At most MaxSearches searches run at once, so they leave
// CPUs to other work.
//
// Only regular files are opened as index files (checked with Lstat
// first: opening a named pipe would block); anything else at an index
// path is refused, naming it. Close waits for the builds under way at
// most CloseTimeout. CheckOutside tells a caller whether an index
// directory lies inside a dataset's.
//
// The package imports env and mattn/go-sqlite3 (it is, with env/sqlite,
// a cgo package) and golang.org/x/text for accent folding.
package valueindex
