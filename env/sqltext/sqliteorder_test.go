package sqltext_test

import (
	"bytes"
	"cmp"
	"reflect"
	"strings"
)

// sqliteSame reports whether two key tuples tie in SQLite.
func sqliteSame(a, b []any) bool {
	for i := range a {
		if sqliteCompare(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

// sqliteCompare orders two values as SQLite's ORDER BY does under the
// BINARY collation: NULL, then numbers, then text, then blobs.
func sqliteCompare(a, b any) int {
	if c := cmp.Compare(classRank[reflect.ValueOf(a).Kind()], classRank[reflect.ValueOf(b).Kind()]); c != 0 {
		return c
	}
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
		return cmp.Compare(float64(x), b.(float64))
	case float64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, float64(y))
		}
		return cmp.Compare(x, b.(float64))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	}
	return 0
}

// classRank ranks the kinds of the values SQLite returns in the order of
// their storage classes; a NULL's kind is reflect.Invalid, ranked 0.
var classRank = map[reflect.Kind]int{reflect.Int64: 1, reflect.Float64: 1, reflect.String: 2, reflect.Slice: 3}
