package hardness

import (
	"strings"
	"testing"
)

// TestSpiderLevels checks queries that exercise each count, and the
// evaluator's quirks, against the levels the official evaluator gives
// them (taoyds/spider's evaluation.py Evaluator.eval_hardness on
// process_sql.get_sql, run on concert_singer's schema).
func TestSpiderLevels(t *testing.T) {
	cases := []struct{ sql, want string }{
		{"SELECT name FROM singer", Easy},
		{"SELECT name FROM singer WHERE age > 20", Easy},
		{"SELECT name FROM singer WHERE age > -1", Easy},
		{"SELECT count(DISTINCT country) FROM singer", Easy},
		{"SELECT name FROM singer WHERE age NOT BETWEEN 20 AND 30", Easy},
		// count_others reads HAVING's AND as an aggregation: one, not two.
		{"SELECT country FROM singer GROUP BY country HAVING count(*) > 1 AND avg(age) > 20", Easy},
		{"SELECT country FROM singer GROUP BY country HAVING count(*) > 1", Easy},
		// NOT LIKE: a LIKE (component 1) and a negated WHERE unit read as an aggregation.
		{"SELECT name, age FROM singer WHERE name NOT LIKE '%a%'", Medium},
		{"SELECT count(*), avg(age) FROM singer", Medium},
		{"SELECT name FROM singer WHERE age > 20 OR age < 10", Medium},
		{"SELECT name FROM singer ORDER BY age DESC LIMIT 1", Medium},
		{"SELECT name FROM singer WHERE age >= 1 AND age <= 3 AND age != 2", Medium},
		{"SELECT name FROM singer ORDER BY max(age) - min(age)", Medium},
		{"SELECT name FROM singer WHERE age NOT IN (SELECT age FROM singer WHERE age > 30)", Hard},
		{"SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id " +
			"JOIN concert AS T3 ON T2.concert_id = T3.concert_id WHERE T3.year = 2014", Hard},
		{"SELECT name FROM singer INTERSECT SELECT name FROM singer WHERE age > 1", Hard},
		{"SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer) UNION SELECT name FROM singer", Extra},
		{"SELECT name, country, age FROM singer WHERE age > 3 GROUP BY country, name", Extra},
	}
	for _, c := range cases {
		got, err := Spider(c.sql)
		if err != nil || got != c.want {
			t.Errorf("Spider(%q) = %q, %v; want %q", c.sql, got, err, c.want)
		}
	}
}

// TestSpiderRefuses checks that what the evaluator's parser cannot read
// is an error, not a level.
func TestSpiderRefuses(t *testing.T) {
	for _, sql := range []string{
		"",
		"UPDATE singer SET age = 1",
		"WITH x AS (SELECT 1) SELECT * FROM x",
		"SELECT 1",
		"SELECT name FROM singer WHERE age ~ 3",
		"SELECT name FROM singer LIMIT",
		"SELECT name FROM singer WHERE age IN (1, 2)",
		strings.Repeat("SELECT a FROM t WHERE a IN (", 100) + "SELECT a FROM t" + strings.Repeat(")", 100),
	} {
		if got, err := Spider(sql); err == nil {
			t.Errorf("Spider(%q) = %q, want an error", sql, got)
		}
	}
}

// FuzzSpider checks that no input makes the parser panic or loop.
func FuzzSpider(f *testing.F) {
	for _, s := range []string{
		"SELECT count(*) FROM a AS T1 JOIN b AS T2 ON T1.x = T2.y WHERE T1.z LIKE '%q%' OR T2.w BETWEEN 1 AND 2",
		"SELECT a FROM t GROUP BY a HAVING count(*) > (SELECT 1 FROM u) ORDER BY sum(b) DESC LIMIT 3 EXCEPT SELECT a FROM v",
		"SELECT (a) FROM ((t))", "SELECT a FROM t WHERE b = \"x\" AND c != 'y'", "select T1.* from t as T1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		level, err := Spider(sql)
		if err == nil && level == "" {
			t.Fatalf("Spider(%q): no level and no error", sql)
		}
	})
}
