package mysql

import (
	"math"
	"strconv"
	"strings"
)

// decodeValue turns one value, as the server writes it in the text
// protocol, into a Go value by its column's type (the driver's name of
// it):
//
//   - integers (TINYINT to BIGINT, YEAR) are int64; an UNSIGNED BIGINT
//     past int64's range is the nearest float64;
//   - FLOAT and DOUBLE are float64;
//   - DECIMAL is int64 when it is a whole number that fits, else the
//     nearest float64 (as the PostgreSQL engine reads numeric);
//   - BIT is int64, its bits read as an unsigned big-endian number;
//   - binary strings (BINARY, VARBINARY, BLOB types, and the BINARY
//     and VARBINARY values of expressions) are []byte;
//   - every other type is its text as the server writes it: DATE
//     "2024-01-31", DATETIME and TIMESTAMP "2024-01-31 12:00:00" (in
//     UTC, the sessions' time zone), TIME, JSON, ENUM, SET, and the
//     character strings.
func decodeValue(b []byte, typ string) (any, error) {
	switch typ {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR",
		"UNSIGNED TINYINT", "UNSIGNED SMALLINT", "UNSIGNED MEDIUMINT", "UNSIGNED INT":
		return strconv.ParseInt(string(b), 10, 64)
	case "UNSIGNED BIGINT":
		if i, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return i, nil
		}
		return strconv.ParseFloat(string(b), 64)
	case "FLOAT", "DOUBLE":
		return parseFloat(string(b))
	case "DECIMAL":
		return parseDecimal(string(b))
	case "BIT":
		var n uint64
		for _, c := range b {
			n = n<<8 | uint64(c)
		}
		if n > math.MaxInt64 {
			return float64(n), nil
		}
		return int64(n), nil
	case "BINARY", "VARBINARY", "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB":
		return append([]byte{}, b...), nil
	}
	return string(b), nil
}

// parseFloat reads a FLOAT or DOUBLE; the server writes its infinities
// as "inf" and "-inf" where a value can hold one.
func parseFloat(s string) (float64, error) {
	return strconv.ParseFloat(s, 64)
}

// parseDecimal reads a DECIMAL: a whole number that fits int64 as one,
// anything else as the nearest float64.
func parseDecimal(s string) (any, error) {
	if !strings.Contains(s, ".") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
	}
	return strconv.ParseFloat(s, 64)
}
