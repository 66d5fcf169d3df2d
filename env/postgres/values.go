package postgres

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// Type OIDs of the built-in types that are not read as text.
const (
	oidBool    = 16
	oidBytea   = 17
	oidInt8    = 20
	oidInt2    = 21
	oidInt4    = 23
	oidOID     = 26
	oidFloat4  = 700
	oidFloat8  = 701
	oidNumeric = 1700
)

// decodeRow turns one row of text-format values into Go values: NULL is
// nil; integers are int64; float4 and float8 are float64 (NaN and the
// infinities included); numeric is int64 when it is a whole number that
// fits, else float64 (the nearest, as Python's float() reads it); bool is
// bool; bytea is []byte; every other type (dates, timestamps, intervals,
// arrays, json, uuid, ...) is its text as PostgreSQL writes it, which
// is what psql shows. The values never alias raw, which the connection
// reuses.
func decodeRow(raw [][]byte, oids []uint32) ([]any, error) {
	if len(raw) != len(oids) {
		return nil, fmt.Errorf("read rows: %d values for %d columns", len(raw), len(oids))
	}
	row := make([]any, len(raw))
	for i, b := range raw {
		if b == nil {
			continue
		}
		v, err := decodeValue(b, oids[i])
		if err != nil { // the statement changed an output setting (bytea_output, ...)
			return nil, env.NewQueryError(env.ErrSQL, fmt.Sprintf("column %d: cannot read its value: %v", i+1, err))
		}
		row[i] = v
	}
	return row, nil
}

func decodeValue(b []byte, oid uint32) (any, error) {
	s := string(b)
	switch oid {
	case oidInt2, oidInt4, oidInt8, oidOID:
		return strconv.ParseInt(s, 10, 64)
	case oidFloat4, oidFloat8:
		return parseFloat(s)
	case oidNumeric:
		return parseNumeric(s)
	case oidBool:
		return s == "t", nil
	case oidBytea:
		return parseBytea(s)
	}
	return s, nil
}

// parseFloat reads PostgreSQL's float text, whose infinities are spelled
// "Infinity".
func parseFloat(s string) (float64, error) {
	switch s {
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// parseNumeric reads a numeric: a whole number that fits int64 as one,
// anything else as the nearest float64.
func parseNumeric(s string) (any, error) {
	if !strings.ContainsAny(s, ".eEIN") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
	}
	return parseFloat(s)
}

// parseBytea reads bytea's hex output, "\x0aff".
func parseBytea(s string) ([]byte, error) {
	h, ok := strings.CutPrefix(s, `\x`)
	if !ok {
		return nil, fmt.Errorf("bytea %.20q: want the hex format (bytea_output = hex)", s)
	}
	return hex.DecodeString(h)
}
