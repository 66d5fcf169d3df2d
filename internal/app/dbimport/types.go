package dbimport

import (
	"fmt"
	"strings"
)

// PostgreSQL column types an imported column gets.
const (
	TypeBigint = "bigint"
	TypeDouble = "double precision"
	TypeText   = "text"
	TypeBytea  = "bytea"
	TypeNumber = "numeric"
)

// Classes counts a column's values by SQLite storage class (typeof).
type Classes struct {
	Null, Integer, Real, Text, Blob int64
}

// add counts n values of the storage class typeof names.
func (c *Classes) add(typeOf string, n int64) error {
	switch typeOf {
	case "null":
		c.Null += n
	case "integer":
		c.Integer += n
	case "real":
		c.Real += n
	case "text":
		c.Text += n
	case "blob":
		c.Blob += n
	default:
		return fmt.Errorf("unknown storage class %q", typeOf)
	}
	return nil
}

// Total is the number of values counted.
func (c Classes) Total() int64 { return c.Null + c.Integer + c.Real + c.Text + c.Blob }

// ColumnType chooses a column's PostgreSQL type from the values it holds:
// the widest storage class present wins (blob > text > real > integer),
// so every value keeps its content; a column holding only NULLs (or no
// rows) takes the type its declaration's SQLite affinity suggests. It
// also says how many values change class on the way, and how.
func ColumnType(declared string, c Classes) (pgType string, coerced int64, how string) {
	switch {
	case c.Blob > 0:
		n := c.Integer + c.Real + c.Text
		return TypeBytea, n, "stored as the bytes of their SQLite text"
	case c.Text > 0:
		n := c.Integer + c.Real
		return TypeText, n, "numbers stored as their SQLite text (CAST AS TEXT)"
	case c.Real > 0:
		return TypeDouble, c.Integer, "integers widened to double precision"
	case c.Integer > 0:
		return TypeBigint, 0, ""
	}
	return affinityType(declared), 0, ""
}

// affinityType is the type of an all-NULL column, by SQLite's affinity
// rules on its declared type (https://sqlite.org/datatype3.html, 3.1).
func affinityType(declared string) string {
	d := strings.ToUpper(declared)
	switch {
	case strings.Contains(d, "INT"):
		return TypeBigint
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return TypeText
	case d == "", strings.Contains(d, "BLOB"):
		return TypeText
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return TypeDouble
	case strings.Contains(d, "DATE"), strings.Contains(d, "TIME"):
		return TypeText // SQLite keeps dates as text
	}
	return TypeNumber
}

// readExpr is the SQLite expression that reads column col (quoted) as
// the PostgreSQL type pgType wants it, letting SQLite do each conversion
// the way its own CAST does.
func readExpr(col, pgType string) string {
	switch pgType {
	case TypeText:
		return "CAST(" + col + " AS TEXT)"
	case TypeDouble:
		return "CAST(" + col + " AS REAL)"
	case TypeBytea:
		return "CAST(" + col + " AS BLOB)"
	}
	return col
}
