package suitegen

import (
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// TestNeighboursByEdit checks, edit kind by edit kind, neighbours worked
// out by hand from golds of Spider-dev (and a few written on its schemas
// where Spider-dev has no gold of the kind: arithmetic, floats), and
// neighbours that must not be made.
func TestNeighboursByEdit(t *testing.T) {
	tests := []struct {
		db, gold string
		edit     Edit
		want     []string // each must be a neighbour made by edit
		not      []string // none may be a neighbour
	}{
		{db: "concert_singer", gold: `SELECT count(*) FROM concert WHERE YEAR  =  2014 OR YEAR  =  2015`, edit: EditCompare,
			want: []string{"SELECT count(*) FROM concert WHERE YEAR >= 2014 OR YEAR = 2015", "SELECT count(*) FROM concert WHERE YEAR = 2014 OR YEAR != 2015"},
			not:  []string{"SELECT count(*) FROM concert WHERE YEAR <> 2014 OR YEAR = 2015"}},
		{db: "concert_singer", gold: `SELECT count(*) FROM concert WHERE YEAR  =  2014 OR YEAR  =  2015`, edit: EditAndOr,
			want: []string{"SELECT count(*) FROM concert WHERE YEAR = 2014 AND YEAR = 2015"}},
		{db: "concert_singer", gold: `SELECT count(*) FROM concert WHERE YEAR  =  2014 OR YEAR  =  2015`, edit: EditCondition,
			want: []string{"SELECT count(*) FROM concert WHERE YEAR = 2014", "SELECT count(*) FROM concert WHERE YEAR = 2015"}},
		{db: "concert_singer", gold: `SELECT LOCATION ,  name FROM stadium WHERE capacity BETWEEN 5000 AND 10000`, edit: EditCondition,
			want: []string{"SELECT LOCATION, name FROM stadium"},
			not:  []string{"SELECT LOCATION, name FROM stadium WHERE capacity BETWEEN 5000 OR 10000", "SELECT LOCATION, name FROM stadium WHERE capacity BETWEEN 5000"}},
		{db: "concert_singer", gold: `SELECT LOCATION ,  name FROM stadium WHERE capacity BETWEEN 5000 AND 10000`, edit: EditLiteral,
			want: []string{"SELECT LOCATION, name FROM stadium WHERE capacity BETWEEN 4999 AND 10000", "SELECT LOCATION, name FROM stadium WHERE capacity BETWEEN 5000 AND 10001"}},
		{db: "concert_singer", gold: `SELECT name ,  country FROM singer WHERE song_name LIKE '%Hey%'`, edit: EditLike,
			want: []string{"SELECT name, country FROM singer WHERE song_name NOT LIKE '%Hey%'"}},
		{db: "concert_singer", gold: `SELECT name ,  country FROM singer WHERE song_name LIKE '%Hey%'`, edit: EditLiteral,
			want: []string{"SELECT name, country FROM singer WHERE song_name LIKE 'Hey'", "SELECT name, country FROM singer WHERE song_name LIKE '%HEY%'",
				"SELECT name, country FROM singer WHERE song_name LIKE '%hey%'", "SELECT name, country FROM singer WHERE song_name LIKE 'Hey%'"}},
		{db: "concert_singer", gold: `SELECT name ,  country FROM singer WHERE song_name LIKE '%Hey%'`, edit: EditColumn,
			want: []string{"SELECT Song_Name, country FROM singer WHERE song_name LIKE '%Hey%'", "SELECT name, country FROM singer WHERE Name LIKE '%Hey%'"},
			not:  []string{"SELECT Age, country FROM singer WHERE song_name LIKE '%Hey%'"}},
		{db: "concert_singer", gold: `SELECT name ,  country FROM singer WHERE song_name LIKE '%Hey%'`, edit: EditDistinct,
			want: []string{"SELECT DISTINCT name, country FROM singer WHERE song_name LIKE '%Hey%'"}},
		{db: "course_teach", gold: `select name from teacher where hometown != "little lever urban district"`, edit: EditLiteral,
			want: []string{`select name from teacher where hometown != "LITTLE LEVER URBAN DISTRICT"`, `select name from teacher where hometown != "Little Lever Urban District"`,
				`select name from teacher where hometown != "%little lever urban district%"`, `select name from teacher where hometown != "ittle lever urban district"`}},
		{db: "concert_singer", gold: `SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)`, edit: EditIn,
			want: []string{"SELECT name FROM stadium WHERE stadium_id IN (SELECT stadium_id FROM concert)"}},
		{db: "car_1", gold: `select distinct year from cars_data where weight between 3000 and 4000;`, edit: EditDistinct,
			want: []string{"select year from cars_data where weight between 3000 and 4000"}},
		{db: "concert_singer", gold: `select avg(capacity) ,  max(capacity) from stadium`, edit: EditAggregate,
			want: []string{"select sum(capacity), max(capacity) from stadium", "select avg(capacity), min(capacity) from stadium", "select avg(capacity), count(capacity) from stadium"}},
		{db: "pets_1", gold: `SELECT count(DISTINCT pettype) FROM pets`, edit: EditCount,
			want: []string{"SELECT count(*) FROM pets"}},
		{db: "pets_1", gold: `SELECT count(pettype) FROM pets`, edit: EditCount,
			want: []string{"SELECT count(*) FROM pets", "SELECT count(DISTINCT pettype) FROM pets"}},
		{db: "world_1", gold: `SELECT Name FROM country ORDER BY Population ASC LIMIT 3`, edit: EditOrder,
			want: []string{"SELECT Name FROM country ORDER BY Population DESC LIMIT 3"}},
		{db: "employee_hire_evaluation", gold: `SELECT name FROM employee ORDER BY age`, edit: EditOrder,
			want: []string{"SELECT name FROM employee ORDER BY age DESC"}},
		{db: "world_1", gold: `SELECT Name FROM country ORDER BY Population ASC LIMIT 3`, edit: EditLimit,
			want: []string{"SELECT Name FROM country ORDER BY Population ASC", "SELECT Name FROM country ORDER BY Population ASC LIMIT 2", "SELECT Name FROM country ORDER BY Population ASC LIMIT 4"},
			not:  []string{"SELECT Name FROM country ORDER BY Population ASC LIMIT 5"}},
		{db: "pets_1", gold: `SELECT T1.fname ,  T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid  =  T2.stuid GROUP BY T1.stuid HAVING count(*)  >  1`, edit: EditJoin,
			want: []string{"SELECT T1.fname, T1.sex FROM student AS T1 LEFT JOIN has_pet AS T2 ON T1.stuid = T2.stuid GROUP BY T1.stuid HAVING count(*) > 1"}},
		{db: "pets_1", gold: `SELECT T1.fname ,  T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid  =  T2.stuid GROUP BY T1.stuid HAVING count(*)  >  1`, edit: EditGroupBy,
			want: []string{"SELECT T1.fname, T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid HAVING count(*) > 1",
				"SELECT T1.fname, T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid"}},
		{db: "pets_1", gold: `SELECT T1.fname ,  T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid  =  T2.stuid GROUP BY T1.stuid HAVING count(*)  >  1`, edit: EditCondition,
			want: []string{"SELECT T1.fname, T1.sex FROM student AS T1 JOIN has_pet AS T2 GROUP BY T1.stuid HAVING count(*) > 1",
				"SELECT T1.fname, T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid GROUP BY T1.stuid"}},
		{db: "pets_1", gold: `SELECT T1.fname ,  T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid  =  T2.stuid GROUP BY T1.stuid HAVING count(*)  >  1`, edit: EditColumn,
			want: []string{"SELECT T1.fname, T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid GROUP BY T1.Age HAVING count(*) > 1",
				"SELECT T1.fname, T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.PetID GROUP BY T1.stuid HAVING count(*) > 1",
				"SELECT T1.LName, T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid GROUP BY T1.stuid HAVING count(*) > 1"},
			not: []string{"SELECT T1.fname, T1.Sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid GROUP BY T1.stuid HAVING count(*) > 1",
				"SELECT T1.fname, T1.sex FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid GROUP BY T1.LName HAVING count(*) > 1"}},
		{db: "concert_singer", gold: `SELECT max(capacity) - min(capacity) FROM stadium`, edit: EditArithmetic,
			want: []string{"SELECT max(capacity) + min(capacity) FROM stadium", "SELECT max(capacity) * min(capacity) FROM stadium", "SELECT max(capacity) / min(capacity) FROM stadium"},
			not:  []string{"SELECT max(capacity) - min(capacity) FROM stadium"}},
		{db: "pets_1", gold: `SELECT petid FROM pets WHERE weight > 9.5`, edit: EditLiteral,
			want: []string{"SELECT petid FROM pets WHERE weight > 9.4", "SELECT petid FROM pets WHERE weight > 9.6"}},
		{db: "pets_1", gold: `SELECT count(*) FROM pets`, edit: EditArithmetic,
			not: []string{"SELECT count(+) FROM pets"}},
	}
	for _, tt := range tests {
		got := Neighbours(tt.gold, spiderSchema(t, tt.db), 1)
		for _, w := range tt.want {
			if !slices.Contains(got, Neighbour{SQL: w, Edit: tt.edit}) {
				t.Errorf("%s: %s: no %s neighbour %q; got\n%s", tt.db, tt.gold, tt.edit, w, listed(got))
			}
		}
		for _, n := range got {
			if slices.Contains(tt.not, n.SQL) {
				t.Errorf("%s: %s: unwanted neighbour %q (%s)", tt.db, tt.gold, n.SQL, n.Edit)
			}
		}
	}
}

// listed writes neighbours one a line, for failure messages.
func listed(ns []Neighbour) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString("  " + string(n.Edit) + " | " + n.SQL + "\n")
	}
	return b.String()
}

// TestNeighboursDistinctAndDeterministic checks, on every gold of
// Spider-dev, that the neighbours are distinct from each other and from
// the gold once normalized, and the same for the same seed.
func TestNeighboursDistinctAndDeterministic(t *testing.T) {
	ds := spider(t)
	schemas := map[string]*Schema{}
	for _, task := range ds.Tasks {
		sc, ok := schemas[task.DBID]
		if !ok {
			sc = spiderSchema(t, task.DBID)
			schemas[task.DBID] = sc
		}
		got := Neighbours(task.GoldSQL, sc, 7)
		if again := Neighbours(task.GoldSQL, sc, 7); !slices.Equal(got, again) {
			t.Fatalf("%s: two calls with one seed differ", task.ID)
		}
		seen := map[string]bool{sqltext.Normalize(task.GoldSQL): true}
		for _, n := range got {
			key := sqltext.Normalize(n.SQL)
			if seen[key] {
				t.Errorf("%s: neighbour %q repeats the gold or another neighbour", task.ID, n.SQL)
			}
			seen[key] = true
		}
	}
}
