// Package testsuite keeps the test suites of a dataset on disk and serves
// a task's suite to the judge.
//
// A test suite is a handful of databases with a task database's schema and
// other rows, distilled for one gold query so that its near misses (its
// neighbour queries) return other results on at least one of them; a
// prediction is judged on the task's database and on its suite. The
// suites are built by internal/app/suitegen; this package holds what the
// builder and the server share: the layout, the manifest, the identity of
// what a suite was built from, and the reader.
//
// Layout, under a root directory (serve's default is
// <data-dir>/testsuites):
//
//	<root>/<dataset>/<db_id>/manifest.json
//	<root>/<dataset>/<db_id>/ts-0007.sqlite   (candidate 7, kept)
//
// A manifest lists the databases kept for a source database and, per gold
// (keyed by the gold's SQL text, so a dataset renamed or re-indexed keeps
// its suites), the names of its suite's databases in judging order and
// the counts of its build. It names no engine-specific thing but the file
// or, for a suite carried into another dialect, the source string of each
// database.
//
// A manifest is written last and whole (base/atomicfile): a build
// that stops half-way leaves the old manifest or none, never a broken
// one. Open checks each manifest's identity against the dataset served
// and serves only current suites; a stale or missing one is reported,
// never served.
package testsuite
