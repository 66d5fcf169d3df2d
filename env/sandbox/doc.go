// Package sandbox holds the engine-neutral half of every engine's
// sandbox: the check of the text a model sends (one statement, a length
// bound, a leading keyword the engine allows) and the collector that
// keeps a result within its bounds (the row cap plus one, the byte
// budget, cells cut to size, the engine's ceilings). Describe's sample
// rows and its one-table check are shared here too, and the Admission by
// which every engine shares its connections among databases and episode
// groups. Each engine in
// env/<engine> runs a statement through Rules.Statement before its
// server or library sees it, and feeds the rows it reads to a Collector.
//
// It imports env, env/sqltext and the standard library only.
package sandbox
