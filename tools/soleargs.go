package tools

import (
	"encoding/json"
	"unicode/utf8"
)

// The arguments of nearly every step are {"sql": "..."}: an execute_sql or
// a submit. Decode reads that shape with one pass over the bytes instead
// of decoding a map, sorting its keys, checking each against the schema and
// decoding the object a second time into the struct. Anything else, and
// any text the fast path is not sure of, takes the general path, so both
// give the same answer (FuzzDecodeSoleSQL checks it).

// soleSQL returns the string of arguments that are exactly one "sql" key
// holding a JSON string, with any white space around the tokens.
func soleSQL(raw []byte) (string, bool) {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return "", false
	}
	i = skipSpace(raw, i+1)
	const key = `"sql"`
	if len(raw)-i < len(key) || string(raw[i:i+len(key)]) != key {
		return "", false
	}
	i = skipSpace(raw, i+len(key))
	if i == len(raw) || raw[i] != ':' {
		return "", false
	}
	i = skipSpace(raw, i+1)
	end, plain := stringToken(raw, i)
	if end < 0 {
		return "", false
	}
	tok := raw[i:end]
	if i = skipSpace(raw, end); i == len(raw) || raw[i] != '}' || skipSpace(raw, i+1) != len(raw) {
		return "", false
	}
	if plain {
		return string(tok[1 : len(tok)-1]), true
	}
	var s string
	if json.Unmarshal(tok, &s) != nil {
		return "", false
	}
	return s, true
}

// stringToken returns the end of the JSON string starting at raw[i] (-1
// when there is none), and whether its content is plain: valid UTF-8
// with no escape and no control character, so it reads as it is.
func stringToken(raw []byte, i int) (int, bool) {
	if i == len(raw) || raw[i] != '"' {
		return -1, false
	}
	plain := true
	for j := i + 1; j < len(raw); j++ {
		switch c := raw[j]; {
		case c == '"':
			return j + 1, plain && utf8.Valid(raw[i+1:j])
		case c == '\\':
			plain = false
			j++ // the escaped byte cannot end the string
		case c < 0x20:
			return -1, false // invalid JSON: the general path says so
		}
	}
	return -1, false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}
