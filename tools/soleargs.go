package tools

import "github.com/sqlgym/sqlgym/base/jsonscan"

// The arguments of nearly every step are {"sql": "..."}: an execute_sql or
// a submit. Decode reads that shape with one pass over the bytes instead
// of decoding a map, sorting its keys, checking each against the schema and
// decoding the object a second time into the struct. Anything else, and
// any text the fast path is not sure of, takes the general path, so both
// give the same answer (TestSoleSQLReadsWhatTheGeneralPathReads checks it;
// jsonscan's fuzz test checks the scanner against encoding/json).

// soleSQL returns the string of arguments that are exactly one "sql" key
// (spelled so: another spelling takes the general path) holding a JSON
// string, with any white space around the tokens.
func soleSQL(raw []byte) (string, bool) { return jsonscan.SoleString(raw, "sql") }
