// Package tools is what the model can do in an episode: the registry of
// tools (inspect_schema, execute_sql and submit, protocol v1's default
// set, then search_values and describe_column), each one entry with its
// argument struct and the JSON Schema reflected from it, what it runs and
// its repeat key; the Set of tools an episode offers; the decoding of a
// call's arguments, the parsers of text actions (hermes and tags), and
// the rendering of every observation the model reads.
//
// Observations are plain text, compact and deterministic: a result set is a
// header line and one line per row, with NULL spelled out, floats in their
// shortest form, blobs summarized, long cells cut, and every observation
// bounded in bytes with a note saying what was left out.
//
// The prompt does not carry the database schema: the model is told to
// inspect it with the tools. That keeps prompts short on databases with
// hundreds of columns (BIRD), makes exploring the schema part of the
// multi-turn task being trained, and keeps the prompt the same size for
// every database; a client that wants the schema up front can fetch it and
// add it itself.
//
// The package imports env, env/sqltext, schemas and invopop/jsonschema; it
// never opens a database itself: the Runner runs tools against an env.DB it
// is handed, and search_values asks the env.ValueSearcher of its Config.
package tools
