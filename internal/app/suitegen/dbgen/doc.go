// Package dbgen generates random SQLite databases with a real database's
// schema: the databases of test-suite judging, on which a prediction and
// its gold must agree beyond the one database the task was asked of
// (docs/reward.md). Analyze reads a source database and the golds asked of
// it once; Generate then writes a database per seed, deterministically,
// in milliseconds.
//
// # Values
//
// Each column draws from a pool: a sample of its own distinct values
// (Config.SampleValues of them, evenly spread over their sorted order),
// and the literals the golds compare it with, typed by the column, with
// values around them. A gold is read from its tokens (env/sqltext), not
// parsed: a column meets a literal in a comparison (T1.age > 30, and
// 30 < age), BETWEEN and NOT BETWEEN, IN and NOT IN lists, LIKE, NOT LIKE
// and GLOB patterns, and under min, max, avg and sum (HAVING avg(age) >
// 30). A qualified name resolves through every table the statement binds
// its qualifier to, anywhere in it (Spider names other tables T1 and T2
// again in subqueries); an unqualified one, to every table of the
// statement that has such a column; a double-quoted name that is no
// column is a string, as SQLite reads it. Over-seeding costs nothing: a
// value no gold needs is one more value.
//
// Around each literal: an integer v gives v-1, v and v+1; a real, or any
// number a column of reals meets, v and one step either side (the finer
// of its own precision and the column's, a tenth at the coarsest), with
// its floor and ceiling; a date, the day before and after, in its own
// layout and the column's; other text, its upper- and lower-case forms,
// its first letter's case swapped, a letter added before and after, and
// its first and last character dropped, so that = and LIKE '%x%' differ;
// a LIKE pattern, texts that match it (its wildcards emptied or filled,
// another case, a value of the column's own that matches) and texts that
// do not. A child's seeds go to the parents it draws from.
//
// In each database a column uses a capped number of its pool's original
// values (a key's pool excepted), so values repeat and DISTINCT, GROUP BY
// and COUNT variants differ; most of its gold values, drawn in 40% of its
// rows; and, in half the databases, a few values the source lacks (a
// number a little out of range, a changed text, a date in range), never
// for a column a CHECK names.
//
// # Types
//
// A value takes a storage class the column's source values have: a column
// whose values are all integers gets integers, text that reads as numbers
// stays text ("2014" moves to "2013", not 2013), dates keep their layout.
// The declared type does not decide: SQLite's affinity would coerce a
// value anyway, and the source shows what it kept. A text that the
// column's numeric affinity would turn into a number is never drawn.
//
// # Constraints
//
// A generated file is made by the source's own CREATE TABLE and CREATE
// INDEX statements (views and triggers follow the rows), so the engine
// checks primary keys, UNIQUE constraints and indexes, NOT NULL and CHECK
// on each row: a row it refuses is skipped and counted (Stats.Refused).
// Generation keeps the keys itself too - a row whose key tuple is taken is
// drawn again - so refusals are rare: a CHECK, an expression index, a
// collation. Foreign keys are kept by construction, not by the engine
// (a declared key whose parent columns are no key, as Spider's voter_1
// has, would make SQLite refuse every row): a child takes its key's
// values, together for a composite key, from a row written for the
// parent (in 40% of its rows, first one that holds a value the golds
// compare the child's own columns with); tables are filled parents
// first; a key to the table itself takes its values from rows already
// written or the row's own key; a cycle of keys is broken at one key,
// whose columns then share their parent's pool instead of drawing its
// rows.
//
// # Keys the golds imply
//
// Spider often declares no key where its golds join. An equality a.x =
// b.y between columns of two tables, in ON or in WHERE, that no declared
// key ties (nor both columns to one parent) becomes a key: the side that
// is a key of its table by itself is the parent (both: the side whose
// source values hold the other's). It is strict, like a declared key,
// when the source keeps it so; otherwise 15% of the child's values come
// from its own pool. When neither side is a key, the two columns share
// one pool, so joins on them still match. Describe reports them all.
//
// # NULLs
//
// The rule: a column gets NULLs only when it may hold them (not NOT NULL,
// not in the primary key) and the source holds at least one NULL in it
// (among the rows read); it then gets them in the source's share of its
// rows, kept between 10% (so they show) and 90% (so values do too). So
// IS NULL, count(col) against count(*) and LEFT JOIN are tested where the
// data allows NULLs, and no answer that is right on every database the
// source allows is failed by a NULL the source never has.
//
// # Sizes
//
// Each table's size is drawn per database: empty in 8% (2% for a table
// others draw rows from, since its children would be empty too), one to
// three rows in 12%, Config.MaxRows in 10%, and otherwise from ten up to
// MaxRows. A table gets fewer rows when its keys or parents allow no
// more. A source table's values are read from its first 100,000 rows.
//
// # Determinism
//
// The same plan and seed give the same file, byte for byte: one PCG
// stream seeded from the seed (math/rand/v2), no map iterated, no clock
// read. Files are written in one transaction with no journal and no
// syncs, and closed cleanly: env/sqlite opens them read-only and
// immutable.
package dbgen
