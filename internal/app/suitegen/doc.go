// Package suitegen builds the test suites of a dataset: for each gold
// query, a few generated databases on which its near misses return other
// results, so that a prediction paid for agreeing with the gold on the
// task's database must also agree on them.
//
// # Neighbours
//
// A gold's neighbours are the queries one edit away from it, made on the
// tokens of env/sqltext (no parser): a comparison operator swapped for
// another of =, !=, <, >, <=, >= (<> and == are spellings of != and =); a
// binary + - * / swapped; AND <-> OR (not a BETWEEN's AND); LIKE <-> NOT
// LIKE; IN <-> NOT IN; a predicate of a WHERE, HAVING or ON dropped with
// its connective (the clause, when it is the only one); a number changed
// (an integer v to v-1, v+1 and two draws from [-|v|-1, |v|+1]; a float to
// v-0.1, v+0.1 and two draws from [-|v|, |v|]) or a string changed (its
// substrings without the first or last character, its halves, a drawn
// substring and a drawn one-span deletion, the %-wrapped form or a
// pattern's unwrapped one, upper, lower and title case); DISTINCT added
// or removed; an aggregate swapped among count, min, max, avg and sum and
// COUNT among count(*), count(col) and count(DISTINCT col); an ORDER BY
// term's direction flipped (DESC added where none is written); LIMIT n to
// n+1, n-1 or dropped; a column swapped for another of its table declared
// with the same type (a qualified column through every table its alias is
// bound to, a bare one through every table of the statement that has it);
// JOIN <-> LEFT JOIN; GROUP BY dropped, alone or with its HAVING, and
// HAVING dropped. Neighbours equal to the gold or to each other after
// sqltext.Normalize go; the rest are put in an order drawn from the
// build's seed and the gold, and the first MaxNeighbours that run without
// error on an empty copy of the schema and, within the row cap, on the
// source database are kept.
//
// # Distillation
//
// Per source database, the generator (a Planner: internal/app/suitegen/dbgen
// by default) reads the database and all its golds; candidate databases
// 0..T-1 are drawn from seeds derived from the build's seed. For each
// gold in turn, the candidates are read in order: the gold and each of
// its neighbours not yet told apart run on it, and the candidate joins
// the gold's suite when it tells apart at least one of them; the gold is
// done when none is left. The databases kept are the candidates some gold
// kept, named by their index (ts-0007), so a database drawn again keeps
// its name. Held-out databases, drawn from another seed stream, measure
// the result: of the neighbours some held-out database tells apart, the
// share the suite tells apart, and the share the source database alone
// does.
//
// What a database says of a gold and a neighbour is decided in one place,
// apart.go: the neighbour is told apart when its rows differ from the
// gold's under the bird rule or under the spider rule with DISTINCT kept
// (in order when the gold says ORDER BY); a neighbour that fails, times
// out or passes the row cap is not. A gold whose result depends on the
// order in which the engine breaks ties (its top-level ORDER BY, or a
// LIMIT without one, settled by its output columns one way and the other
// gives results told apart) is counted: on the source database it is
// reported, and a candidate on which it is so tells nothing for it.
//
// A build is deterministic: the same dataset, configuration and
// generator make the same manifests and files, whatever the number of
// workers. The one exception is a query's time limit, which depends on
// the machine: a neighbour that runs over it on one machine and not on
// another is told apart on one only.
//
// Only SQLite datasets are built; `sqlgym import` carries suites to the
// other dialects.
package suitegen
