package sqltext_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// serverExtra is how many rows past its window a probe reads on the
// servers: more than the tables hold.
const serverExtra = 100

// serverRows are the tables the servers' cases read; the salaries of
// Ann and Bob, Cid and Fay tie, as do the counts of ops and hr.
const serverRows = `INSERT INTO emp VALUES (1, 'Ann', 'eng', 100, NULL), (2, 'Bob', 'eng', 100, 5),
	(3, 'Cid', 'ops', 90, 5), (4, 'Dee', 'ops', 80, NULL), (5, 'Eve', 'eng', 120, 1), (6, 'Fay', 'hr', 90, 2),
	(7, 'Gus', 'hr', 70, 3);
INSERT INTO %[1]sQuoted Tab%[1]s VALUES ('b', 'ORDER BY 1'), ('a', 'x'), ('c', 'y'), ('d', 'z');`

// serverSchema creates the tables, with q quoting identifiers.
func serverSchema(q string) string {
	return fmt.Sprintf(`CREATE TABLE emp (id int PRIMARY KEY, name varchar(20), dept varchar(20), salary int, bonus int);
CREATE TABLE %[1]sQuoted Tab%[1]s (%[1]sOrder By%[1]s varchar(20), note varchar(20));
`+serverRows, q)
}

// serverCase is a statement in one server's syntax and what is read of it.
type serverCase struct {
	sql    string
	terms  []string
	desc   []bool
	window sqltext.Window
	added  int
	keys   string // the keys of the window's rows: rows split by ";", terms by ","
}

var postgresCases = []serverCase{
	{sql: "SELECT name FROM emp ORDER BY salary DESC OFFSET 2",
		terms: []string{"salary"}, desc: []bool{true}, window: sqltext.Window{Offset: 2}, added: 1, keys: "100;90;90;80;70"},
	{sql: "SELECT name, salary FROM emp ORDER BY salary DESC NULLS LAST, bonus NULLS FIRST FETCH FIRST 3 ROWS ONLY",
		terms: []string{"salary", "bonus"}, desc: []bool{true, false}, window: sqltext.Window{Limit: 3, HasLimit: true}, added: 1,
		keys: "120,1;100,NULL;100,5"},
	{sql: "SELECT name, rank() OVER (ORDER BY salary DESC) AS r FROM emp ORDER BY r, name LIMIT 4",
		terms: []string{"r", "name"}, desc: []bool{false, false}, window: sqltext.Window{Limit: 4, HasLimit: true},
		keys: "1,Eve;2,Ann;2,Bob;4,Cid"},
	{sql: "WITH top AS (SELECT * FROM emp ORDER BY salary DESC LIMIT 5) SELECT dept, count(*) FROM top GROUP BY dept ORDER BY 2 DESC LIMIT 2",
		terms: []string{"2"}, desc: []bool{true}, window: sqltext.Window{Limit: 2, HasLimit: true}, keys: "3;1"},
	{sql: "SELECT \"Order By\" FROM \"Quoted Tab\" /* ORDER BY note */ WHERE note <> 'ORDER BY 1' ORDER BY \"Order By\" -- LIMIT 1\n LIMIT 2 OFFSET 1;",
		terms: []string{`"Order By"`}, desc: []bool{false}, window: sqltext.Window{Offset: 1, Limit: 2, HasLimit: true}, keys: "c;d"},
	{sql: "SELECT name FROM emp WHERE salary > (SELECT min(salary) FROM emp) ORDER BY bonus DESC NULLS LAST LIMIT 3",
		terms: []string{"bonus"}, desc: []bool{true}, window: sqltext.Window{Limit: 3, HasLimit: true}, added: 1, keys: "5;5;2"},
	{sql: "SELECT name FROM emp WHERE dept = 'eng' UNION ALL SELECT name FROM emp WHERE dept = 'hr' ORDER BY 1 DESC LIMIT 2 OFFSET 1",
		terms: []string{"1"}, desc: []bool{true}, window: sqltext.Window{Offset: 1, Limit: 2, HasLimit: true}, keys: "Fay;Eve"},
	{sql: "SELECT dept FROM emp LIMIT 2", window: sqltext.Window{Limit: 2, HasLimit: true}, keys: ";"},
	{sql: "SELECT DISTINCT dept FROM emp ORDER BY dept LIMIT 2",
		terms: []string{"dept"}, desc: []bool{false}, window: sqltext.Window{Limit: 2, HasLimit: true}, keys: "eng;hr"},
	{sql: "(SELECT name, salary AS pay FROM emp ORDER BY pay, emp.name LIMIT 3)",
		terms: []string{"pay", "emp.name"}, desc: []bool{false, false}, window: sqltext.Window{Limit: 3, HasLimit: true},
		added: 1, keys: "70,Gus;80,Dee;90,Cid"},
	{sql: "SELECT name FROM emp ORDER BY salary, name LIMIT ALL OFFSET 5",
		terms: []string{"salary", "name"}, desc: []bool{false, false}, window: sqltext.Window{Offset: 5}, added: 1, keys: "100,Bob;120,Eve"},
}

var mariadbCases = []serverCase{
	{sql: "SELECT name FROM emp ORDER BY salary DESC LIMIT 1, 2",
		terms: []string{"salary"}, desc: []bool{true}, window: sqltext.Window{Offset: 1, Limit: 2, HasLimit: true}, added: 1, keys: "100;100"},
	{sql: "SELECT name FROM emp ORDER BY salary DESC LIMIT 2 OFFSET 2",
		terms: []string{"salary"}, desc: []bool{true}, window: sqltext.Window{Offset: 2, Limit: 2, HasLimit: true}, added: 1, keys: "100;90"},
	{sql: "SELECT name, salary FROM emp ORDER BY salary DESC OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY",
		terms: []string{"salary"}, desc: []bool{true}, window: sqltext.Window{Offset: 1, Limit: 2, HasLimit: true}, keys: "100;100"},
	{sql: "SELECT name, rank() OVER (ORDER BY salary DESC) AS r FROM emp ORDER BY r LIMIT 3",
		terms: []string{"r"}, desc: []bool{false}, window: sqltext.Window{Limit: 3, HasLimit: true}, keys: "1;2;2"},
	{sql: "WITH top AS (SELECT * FROM emp ORDER BY salary DESC LIMIT 5) SELECT dept, count(*) AS n FROM top GROUP BY dept ORDER BY n DESC LIMIT 2",
		terms: []string{"n"}, desc: []bool{true}, window: sqltext.Window{Limit: 2, HasLimit: true}, keys: "3;1"},
	{sql: "SELECT `Order By` FROM `Quoted Tab` /* ORDER BY note */ WHERE note <> 'ORDER BY 1' ORDER BY `Order By` DESC -- LIMIT 1\n LIMIT 2;",
		terms: []string{"`Order By`"}, desc: []bool{true}, window: sqltext.Window{Limit: 2, HasLimit: true}, keys: "d;c"},
	{sql: "SELECT name FROM emp WHERE id IN (SELECT id FROM (SELECT id FROM emp ORDER BY bonus LIMIT 4) AS s) ORDER BY name DESC",
		terms: []string{"name"}, desc: []bool{true}, keys: "Fay;Eve;Dee;Ann"},
	{sql: "SELECT dept, max(salary) FROM emp GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 2",
		terms: []string{"count(*)", "1"}, desc: []bool{true, false}, window: sqltext.Window{Limit: 2, HasLimit: true}, added: 1,
		keys: "3,eng;2,hr"},
	{sql: "SELECT name FROM emp LIMIT 3", window: sqltext.Window{Limit: 3, HasLimit: true}, keys: ";;"},
	{sql: "(SELECT name FROM emp WHERE dept = 'eng') UNION (SELECT name FROM emp WHERE dept = 'ops') ORDER BY 1 LIMIT 3",
		terms: []string{"1"}, desc: []bool{false}, window: sqltext.Window{Limit: 3, HasLimit: true}, keys: "Ann;Bob;Cid"},
}

func TestPostgresTies(t *testing.T) {
	_, schema := pgtest.Schema(t, serverSchema(`"`))
	conn := pgtest.Conn(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SET search_path = "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	run := func(q string) ([][]any, error) {
		rows, err := conn.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) {
			vals, err := r.Values()
			return textRow(vals), err
		})
	}
	for _, c := range postgresCases {
		checkServerCase(t, run, c)
	}
}

func TestMariaDBTies(t *testing.T) {
	_, name := mysqltest.Database(t, serverSchema("`"))
	ctx := context.Background()
	conn, err := mysqltest.Admin(t).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "USE `"+name+"`"); err != nil {
		t.Fatal(err)
	}
	run := func(q string) ([][]any, error) {
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		return scanText(rows)
	}
	for _, c := range mariadbCases {
		checkServerCase(t, run, c)
	}
}

// scanText reads every row as text, a NULL as nil.
func scanText(rows *sql.Rows) ([][]any, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		cells := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range cells {
			ptrs[i] = &cells[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]any, len(cols))
		for i, c := range cells {
			if c.Valid {
				row[i] = c.String
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// textRow writes each value as text, a NULL as nil, as scanText reads
// MariaDB's.
func textRow(vals []any) []any {
	for i, v := range vals {
		if v != nil {
			vals[i] = fmt.Sprint(v)
		}
	}
	return vals
}

// checkServerCase checks what is read of a case's statement, then runs
// it, its probe and its tie-break on the server: the probe's keys over the
// window are the case's, and the statement and its tie-break return a
// right answer by the probe, the probe's own rows where nothing ties.
func checkServerCase(t *testing.T, run func(string) ([][]any, error), c serverCase) {
	t.Helper()
	o, ok := sqltext.TopOrder(c.sql)
	if !ok || !reflect.DeepEqual(o.Terms, c.terms) || !reflect.DeepEqual(o.Desc, c.desc) || o.Window != c.window {
		t.Errorf("TopOrder(%q) = %+v, %v; want terms %q, desc %v, window %+v", c.sql, o, ok, c.terms, c.desc, c.window)
		return
	}
	p, ok := sqltext.TieProbe(c.sql, serverExtra)
	if !ok || p.Added != c.added {
		t.Errorf("TieProbe(%q) = %+v, %v; want %d added", c.sql, p, ok, c.added)
		return
	}
	rows, err1 := run(c.sql)
	probe, err2 := run(p.SQL)
	if err1 != nil || err2 != nil {
		t.Errorf("%q: %v; probe %q: %v", c.sql, err1, p.SQL, err2)
		return
	}
	if got := windowKeys(p, probe); got != c.keys {
		t.Errorf("probe %q: keys over the window %q, want %q", p.SQL, got, c.keys)
	}
	tied, err := tieCheck(p, probe, rows, serverExtra, textSame)
	if err == nil && tied == noTies && !exactly(p, probe, rows) {
		err = fmt.Errorf("no ties, yet %v are not the probe's rows", rows)
	}
	if err != nil {
		t.Errorf("%q, probe %q: %v", c.sql, p.SQL, err)
	}
	checkServerTieBreak(t, run, c.sql, p, probe, tied)
}

// checkServerTieBreak runs the statement's tie-break: a right answer by
// its probe, the same rows in the same order when nothing ties.
func checkServerTieBreak(t *testing.T, run func(string) ([][]any, error), q string, p sqltext.Probe, probe [][]any, tied ties) {
	t.Helper()
	cols := len(probe[0]) - p.Added
	tb, ok := sqltext.TieBreak(q, cols)
	if !ok {
		t.Errorf("TieBreak(%q, %d) refused", q, cols)
		return
	}
	rows, err := run(tb)
	if err == nil {
		_, err = tieCheck(p, probe, rows, serverExtra, textSame)
	}
	if err == nil && tied == noTies && !exactly(p, probe, rows) {
		err = fmt.Errorf("no ties, yet %v are not the probe's rows", rows)
	}
	if err != nil {
		t.Errorf("tie-break %q: %v", tb, err)
	}
}

// windowKeys writes the keys of the probe's window rows: rows joined by
// ";", terms by ",", NULL as NULL.
func windowKeys(p sqltext.Probe, probe [][]any) string {
	w := p.Window
	end := int64(len(probe))
	if w.HasLimit {
		end = min(end, w.Offset+w.Limit)
	}
	var rows []string
	for _, r := range probe[min(w.Offset, end):end] {
		var keys []string
		for _, v := range keyOf(p, r) {
			if v == nil {
				v = "NULL"
			}
			keys = append(keys, fmt.Sprint(v))
		}
		rows = append(rows, strings.Join(keys, ","))
	}
	return strings.Join(rows, ";")
}

// textSame reports whether two key tuples of text values (nil for NULL)
// are equal.
func textSame(a, b []any) bool { return reflect.DeepEqual(a, b) }
