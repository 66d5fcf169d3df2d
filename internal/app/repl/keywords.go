package repl

// sqlKeywords are the words of SQL that Tab completes: the keywords and
// functions SQLite and PostgreSQL share, as a text-to-SQL query uses them.
var sqlKeywords = []string{
	"ALL", "AND", "AS", "ASC", "AVG", "BETWEEN", "BY", "CASE", "CAST", "COALESCE", "COUNT", "CROSS",
	"CURRENT_DATE", "CURRENT_TIMESTAMP", "DESC", "DISTINCT", "ELSE", "END", "EXCEPT", "EXISTS", "FALSE",
	"FROM", "FULL", "GROUP", "HAVING", "IN", "INNER", "INTERSECT", "IS", "JOIN", "LEFT", "LENGTH", "LIKE",
	"LIMIT", "LOWER", "MAX", "MIN", "NATURAL", "NOT", "NULL", "NULLIF", "OFFSET", "ON", "OR", "ORDER",
	"OUTER", "OVER", "PARTITION", "RANK", "RECURSIVE", "REPLACE", "RIGHT", "ROUND", "ROW_NUMBER", "SELECT",
	"SUBSTR", "SUM", "THEN", "TRIM", "TRUE", "UNION", "UPPER", "USING", "VALUES", "WHEN", "WHERE", "WITH",
}
