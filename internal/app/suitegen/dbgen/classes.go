package dbgen

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
)

// class is one of SQLite's storage classes other than NULL.
type class uint8

// The storage classes, in the order a column prefers them when a value
// could take several.
const (
	classInt class = iota
	classReal
	classText
	classBlob
	numClasses
)

// classNames are the classes as typeof() names them.
var classNames = [numClasses]string{"integer", "real", "text", "blob"}

// classSet is a set of storage classes.
type classSet uint8

func (s classSet) has(c class) bool { return s&(1<<c) != 0 }

func (s classSet) with(c class) classSet { return s | 1<<c }

// names lists the classes of s as typeof() names them.
func (s classSet) names() []string {
	var out []string
	for c := range numClasses {
		if s.has(c) {
			out = append(out, classNames[c])
		}
	}
	return out
}

// classOf is the storage class of a value as the driver returns it, and
// false for NULL.
func classOf(v any) (class, bool) {
	switch v.(type) {
	case int64:
		return classInt, true
	case float64:
		return classReal, true
	case string:
		return classText, true
	case []byte:
		return classBlob, true
	}
	return 0, false
}

// affinity is a column's type affinity, decided from its declared type by
// SQLite's rules (section 3.1 of "Datatypes In SQLite").
type affinity uint8

// The affinities.
const (
	affNumeric affinity = iota
	affInteger
	affText
	affBlob
	affReal
)

// affinityOf applies SQLite's rules, in their order, to a declared type.
func affinityOf(decl string) affinity {
	d := strings.ToUpper(decl)
	switch {
	case strings.Contains(d, "INT"):
		return affInteger
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return affText
	case strings.Contains(d, "BLOB"), d == "":
		return affBlob
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return affReal
	}
	return affNumeric
}

// fallbackClass is the class values of a column take when its real data
// holds none: the one its affinity stores.
func fallbackClass(a affinity) class {
	switch a {
	case affInteger, affNumeric:
		return classInt
	case affReal:
		return classReal
	}
	return classText
}

// looksNumeric reports whether SQLite's numeric affinities would turn the
// text s into a number. It errs towards yes: such a text is never
// generated for a column that would change its class.
func looksNumeric(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

// valueText is a value as text: an integer in decimal, a real in the
// shortest form that reads back the same, a text itself, a blob's bytes.
func valueText(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// asClass converts text to a value of class c, and false when it cannot
// be one: a text is any text, an integer must read as one (a real with
// an integral value does), a real any number.
func asClass(text string, c class) (any, bool) {
	switch c {
	case classInt:
		return parseInt(text)
	case classReal:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, false
		}
		return f, true
	case classText:
		return text, true
	}
	return []byte(text), true
}

// parseInt reads text as an integer, accepting a real whose value is
// integral ("30.0").
func parseInt(text string) (any, bool) {
	t := strings.TrimSpace(text)
	if i, err := strconv.ParseInt(t, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return nil, false
	}
	return int64(f), true
}

// renderSQL is a value as an SQL literal, for reports.
func renderSQL(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case []byte:
		return "X'" + strings.ToUpper(hex.EncodeToString(x)) + "'"
	}
	return valueText(v)
}
