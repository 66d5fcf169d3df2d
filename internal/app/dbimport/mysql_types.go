package dbimport

import "fmt"

// maxVarchar is the longest text, in characters, a column keeps as
// VARCHAR (which a key may cover whole); a column holding a longer value
// is LONGTEXT.
const maxVarchar = 255

// mysqlType is the MySQL column type of a column of type class class
// (ColumnType's) whose longest value, as text, is maxLen characters. Text
// takes the database's binary collation (binaryCollation), so that it
// compares and sorts by code point, as SQLite compares bytes.
func mysqlType(class string, maxLen int64) string {
	switch class {
	case TypeBigint:
		return "BIGINT"
	case TypeDouble, TypeNumber:
		return "DOUBLE"
	case TypeBytea:
		return "LONGBLOB"
	case TypeText:
		if maxLen <= maxVarchar {
			return fmt.Sprintf("VARCHAR(%d)", maxVarchar)
		}
		return "LONGTEXT"
	}
	return "LONGTEXT"
}
