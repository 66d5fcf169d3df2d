package dbimport

import (
	"reflect"
	"testing"
)

// testSchema has a text column holding ids (as Spider's concert.stadium_id
// does) beside the integer ids it refers to.
var testSchema = &Schema{Tables: map[string]map[string]string{
	"stadium": {"stadium_id": TypeBigint, "name": TypeText, "capacity": TypeBigint},
	"concert": {"concert_id": TypeBigint, "stadium_id": TypeText, "year": TypeText, "theme": TypeText},
	"dogs":    {"dog_id": TypeBigint, "age": TypeText},
}}

func TestRewrite(t *testing.T) {
	tests := []struct {
		in, want string
		rules    []string
	}{
		{`SELECT name FROM stadium`, `SELECT name FROM stadium`, nil},
		{`SELECT name FROM stadium WHERE name = "Hampden"`, `SELECT name FROM stadium WHERE name = 'Hampden'`, []string{RuleDoubleQuotedString}},
		{`SELECT "it's" FROM stadium`, `SELECT 'it''s' FROM stadium`, []string{RuleDoubleQuotedString}},
		{`SELECT "Name", count(*) AS "Total" FROM "Stadium"`, `SELECT "name", count(*) AS "total" FROM "stadium"`, []string{RuleQuotedIdentifier}},
		{"SELECT `Name` FROM [stadium]", `SELECT "name" FROM "stadium"`, []string{RuleQuotedIdentifier}},
		{`SELECT name FROM stadium WHERE name LIKE '%a%' AND name NOT like 'b%'`, `SELECT name FROM stadium WHERE name ILIKE '%a%' AND name NOT ILIKE 'b%'`, []string{RuleLike}},
		{`SELECT ifnull(name, 'x'), instr(name, 'a') FROM stadium`, `SELECT COALESCE(name, 'x'), STRPOS(name, 'a') FROM stadium`, []string{RuleIfNull, RuleInstr}},
		{`SELECT theme FROM concert WHERE year > 2013`, `SELECT theme FROM concert WHERE year > '2013'`, []string{RuleTextVsNumber}},
		{`SELECT theme FROM concert WHERE year = 2014 OR year BETWEEN 2001 AND 2003 OR year IN (1, 2)`,
			`SELECT theme FROM concert WHERE year = '2014' OR year BETWEEN '2001' AND '2003' OR year IN ('1', '2')`, []string{RuleTextVsNumber}},
		{`SELECT name FROM stadium WHERE capacity > 2013`, `SELECT name FROM stadium WHERE capacity > 2013`, nil},
		{`SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id`,
			`SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id::text`, []string{RuleMixedJoin}},
		{`SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)`,
			`SELECT name FROM stadium WHERE stadium_id::text NOT IN (SELECT stadium_id FROM concert)`, []string{RuleMixedJoin}},
		{`SELECT count(*) FROM concert WHERE stadium_id = (SELECT stadium_id FROM stadium LIMIT 1)`,
			`SELECT count(*) FROM concert WHERE stadium_id = (SELECT stadium_id::text FROM stadium LIMIT 1)`, []string{RuleMixedJoin}},
		{`SELECT avg(age) FROM dogs`, `SELECT avg(CAST(age AS double precision)) FROM dogs`, []string{RuleAggregateText}},
		{`SELECT count(*) FROM (SELECT name FROM stadium)`, `SELECT count(*) FROM (SELECT name FROM stadium) AS sub`, []string{RuleSubqueryAlias}},
		{`SELECT count(*) FROM (SELECT name FROM stadium) AS s`, `SELECT count(*) FROM (SELECT name FROM stadium) AS s`, nil},
		{`SELECT T1.name FROM stadium AS T1 JOIN concert AS T2 WHERE T1.capacity > 1`,
			`SELECT T1.name FROM stadium AS T1 CROSS JOIN concert AS T2 WHERE T1.capacity > 1`, []string{RuleCrossJoin}},
		{`SELECT name FROM stadium -- "comment"` + "\n", `SELECT name FROM stadium -- "comment"` + "\n", nil},
	}
	for _, tt := range tests {
		got, rules := Rewrite(tt.in, testSchema)
		if got != tt.want || !reflect.DeepEqual(rules, tt.rules) {
			t.Errorf("Rewrite(%s)\n got %s %q\nwant %s %q", tt.in, got, rules, tt.want, tt.rules)
		}
	}
}

func TestRepairGroupBy(t *testing.T) {
	tests := []struct {
		sql, msg, want string
		ok             bool
	}{
		{`SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.x = T2.x GROUP BY T1.stadium_id ORDER BY T2.name`,
			`column "t2.name" must appear in the GROUP BY clause or be used in an aggregate function`,
			`SELECT MIN(T2.name), count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.x = T2.x GROUP BY T1.stadium_id ORDER BY MIN(T2.name)`, true},
		{`SELECT name, max(capacity) FROM stadium WHERE name <> 'a' GROUP BY capacity`,
			`column "stadium.name" must appear in the GROUP BY clause or be used in an aggregate function`,
			`SELECT MIN(name), max(capacity) FROM stadium WHERE name <> 'a' GROUP BY capacity`, true},
		{`SELECT name FROM stadium`, `relation "x" does not exist`, `SELECT name FROM stadium`, false},
	}
	for _, tt := range tests {
		got, ok := RepairGroupBy(tt.sql, tt.msg)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RepairGroupBy(%s)\n got %s, %v\nwant %s, %v", tt.sql, got, ok, tt.want, tt.ok)
		}
	}
}

func TestColumnType(t *testing.T) {
	tests := []struct {
		declared string
		c        Classes
		want     string
		coerced  int64
	}{
		{"int", Classes{Integer: 5, Null: 1}, TypeBigint, 0},
		{"int", Classes{Integer: 5, Text: 2}, TypeText, 5},
		{"text", Classes{Text: 3}, TypeText, 0},
		{"DECIMAL(19,4)", Classes{Integer: 4, Real: 11}, TypeDouble, 4},
		{"", Classes{Integer: 1, Real: 1, Text: 1, Blob: 1}, TypeBytea, 3},
		{"INTEGER", Classes{Null: 3}, TypeBigint, 0},
		{"VARCHAR(20)", Classes{}, TypeText, 0},
		{"DATETIME", Classes{}, TypeText, 0},
		{"FLOAT", Classes{}, TypeDouble, 0},
		{"DECIMAL(5,2)", Classes{}, TypeNumber, 0},
	}
	for _, tt := range tests {
		got, n, _ := ColumnType(tt.declared, tt.c)
		if got != tt.want || n != tt.coerced {
			t.Errorf("ColumnType(%q, %+v) = %s, %d; want %s, %d", tt.declared, tt.c, got, n, tt.want, tt.coerced)
		}
	}
}

func TestAnswerJSON(t *testing.T) {
	got, err := answerJSON([][]any{{int64(3), 3.0, 0.5, "a\"<", nil, []byte("b")}})
	if want := `[[3,3.0,0.5,"a\"<",null,"b"]]`; err != nil || string(got) != want {
		t.Errorf("answerJSON = %s, %v; want %s", got, err, want)
	}
	if _, err := answerJSON([][]any{{[]byte{0xff}}}); err == nil {
		t.Error("a blob that is not text: no error")
	}
}
