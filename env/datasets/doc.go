// Package datasets reads datasets from their files into env.Dataset: the
// Spider and BIRD layouts, sqlgym's JSONL format, each database's notes
// (BIRD's description files, Spider's tables.json, a JSONL dataset's
// description file), and a Source, the --dataset flag's value. A missing
// database file is named, every one of them, before any is opened.
package datasets
