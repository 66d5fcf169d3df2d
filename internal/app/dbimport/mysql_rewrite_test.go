package dbimport

import (
	"reflect"
	"testing"
)

// mysqlTestSchema is testSchema with a table named by a MySQL keyword.
var mysqlTestSchema = &Schema{Tables: map[string]map[string]string{
	"stadium": testSchema.Tables["stadium"],
	"concert": testSchema.Tables["concert"],
	"show":    {"attendance": TypeBigint, "result": TypeText, "order": TypeBigint},
}, Reserved: map[string]bool{"show": true, "order": true}}

func TestRewriteMySQL(t *testing.T) {
	tests := []struct {
		in, want string
		rules    []string
	}{
		{`SELECT name FROM stadium`, `SELECT name FROM stadium`, nil},
		{`SELECT T1.name FROM Stadium AS T1 WHERE T1.name = "Hampden"`,
			`SELECT t1.name FROM stadium AS t1 WHERE t1.name = 'Hampden'`, []string{RuleMySQLName, RuleDoubleQuotedString}},
		{`SELECT "Name" FROM "Stadium"`, "SELECT `name` FROM `stadium`", []string{RuleQuotedIdentifier}},
		{`SELECT name FROM stadium WHERE name LIKE "%a%"`,
			`SELECT name FROM stadium WHERE name LIKE '%a%' COLLATE utf8mb4_general_ci`, []string{RuleDoubleQuotedString, RuleMySQLLike}},
		{`SELECT name FROM stadium WHERE name = 'a\b'`, `SELECT name FROM stadium WHERE name = 'a\\b'`, []string{RuleMySQLBackslash}},
		{`SELECT name FROM stadium WHERE name = "a\b"`, `SELECT name FROM stadium WHERE name = 'a\\b'`, []string{RuleDoubleQuotedString, RuleMySQLBackslash}},
		{`SELECT length(name), CAST(capacity AS TEXT), CAST(name AS INTEGER) FROM stadium`,
			`SELECT CHAR_LENGTH(name), CAST(capacity AS CHAR), CAST(name AS SIGNED) FROM stadium`, []string{RuleMySQLLength, RuleMySQLCast}},
		{`SELECT capacity / stadium_id, capacity / 2.0 FROM stadium`,
			`SELECT capacity DIV stadium_id, capacity / 2.0 FROM stadium`, []string{RuleMySQLDiv}},
		{`SELECT count(*) / sum(capacity), max(capacity) / 2, avg(capacity) / 2 FROM stadium`,
			`SELECT count(*) DIV sum(capacity), max(capacity) DIV 2, avg(capacity) / 2 FROM stadium`, []string{RuleMySQLDiv}},
		{`SELECT name || ' ' || stadium_id FROM stadium`, `SELECT CONCAT(name , ' ' , stadium_id) FROM stadium`, []string{RuleMySQLConcat}},
		{`SELECT count (*) FROM show`, "SELECT count(*) FROM `show`", []string{RuleMySQLCallSpace, RuleMySQLReserved}},
		{`SELECT "order" FROM show ORDER BY attendance`, "SELECT `order` FROM `show` ORDER BY attendance", []string{RuleQuotedIdentifier, RuleMySQLReserved}},
		{`SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id`,
			`SELECT t2.name FROM concert AS t1 JOIN stadium AS t2 ON t1.stadium_id = CAST(t2.stadium_id AS CHAR)`, []string{RuleMySQLName, RuleMixedJoin}},
		{`SELECT theme FROM concert WHERE year > 2013`, `SELECT theme FROM concert WHERE year > '2013'`, []string{RuleTextVsNumber}},
	}
	for _, tt := range tests {
		got, rules := RewriteMySQL(tt.in, mysqlTestSchema)
		if got != tt.want || !reflect.DeepEqual(rules, tt.rules) {
			t.Errorf("RewriteMySQL(%s)\n = %s %q\nwant %s %q", tt.in, got, rules, tt.want, tt.rules)
		}
	}
}
