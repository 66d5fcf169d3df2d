package tools

import "github.com/sqlgym/sqlgym/internal/jsonscan"

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
func soleSQL(raw []byte) (string, bool) {
	s := jsonscan.New(raw)
	var sql string
	keys := 0
	ok := s.Object(func(key []byte) bool {
		keys++
		if keys > 1 || string(key) != "sql" {
			return false
		}
		var ok bool
		sql, ok = s.Text()
		return ok
	})
	return sql, ok && keys == 1 && s.End()
}
