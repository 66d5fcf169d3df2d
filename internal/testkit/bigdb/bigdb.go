// Package bigdb generates, for tests and benchmarks, a SQLite database
// shaped like a large BIRD one: orders, their customers and reviews, with
// a column of each kind describe_column and search_values meet (a few
// values, every value distinct, numbers, dates, mostly NULL, long text).
// The rows are made by SQL (WITH RECURSIVE) in the database itself, from
// the row numbers only, so a size is the same database on every run and
// nothing large is committed.
package bigdb

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
)

// Statuses are the values of orders.status, one per order in turn.
var Statuses = []string{"shipped", "delivered", "pending", "cancelled", "returned", "processing"}

// Sizes are the rows of each table for a number of orders.
type Sizes struct {
	Orders, Customers, Reviews int
}

// For is the shape of the 1 GB database scaled to n orders:
// a customer for every 5 orders, a review for 3 orders in 10.
func For(n int) Sizes { return Sizes{Orders: n, Customers: max(n/5, 1), Reviews: n * 3 / 10} }

// syllables are 64 of two letters: 16 consonants times 4 vowels.
const consonants, vowels = "bcdfghjklmnprstv", "aeio"

// syllable is the SQL of syllable number x%64 of the integer expression x.
func syllable(x string) string {
	return fmt.Sprintf("substr('%s', (%[2]s) / 4 %% 16 + 1, 1) || substr('%s', (%[2]s) %% 4 + 1, 1)", consonants, x, vowels)
}

// nameSQL is the SQL of customer id's name: a first name of two
// syllables and a last name of three and an "n", capitalized; distinct
// for every id below 2^30.
func nameSQL(id string) string {
	first := syllable(id) + " || " + syllable("("+id+") / 64")
	last := syllable("("+id+") / 4096") + " || " + syllable("("+id+") / 262144") + " || " + syllable("("+id+") / 16777216") + " || 'n'"
	return fmt.Sprintf("upper(substr(%[1]s, 1, 1)) || substr(%[1]s, 2) || ' ' || upper(substr(%[2]s, 1, 1)) || substr(%[2]s, 2)",
		"("+first+")", "("+last+")")
}

// Name is customer id's name, as the database stores it.
func Name(id int) string {
	syl := func(x int) string { return string(consonants[x/4%16]) + string(vowels[x%4]) }
	first := syl(id%64) + syl(id/64%64)
	last := syl(id/4096%64) + syl(id/262144%64) + syl(id/16777216%64) + "n"
	return strings.ToUpper(first[:1]) + first[1:] + " " + strings.ToUpper(last[:1]) + last[1:]
}

// Script is the SQL that makes the database of sizes s.
func Script(s Sizes) string {
	statuses := make([]string, len(Statuses))
	for i, v := range Statuses {
		statuses[i] = fmt.Sprintf("WHEN %d THEN '%s'", i, v)
	}
	return fmt.Sprintf(`
CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, signup_date TEXT);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), status TEXT, amount REAL,
  order_date TEXT, ref TEXT, note TEXT);
CREATE TABLE reviews(id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(id), rating INTEGER, title TEXT, body TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %[1]d)
INSERT INTO customers SELECT i, %[4]s, 'c' || i || '@example.com', 'City ' || (i * 7 %% 997),
  date('2010-01-01', '+' || (i %% 4000) || ' days') FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %[2]d)
INSERT INTO orders SELECT i, (i * 7919) %% %[1]d + 1, CASE i %% 6 %[5]s END, (i * 37 %% 100000) / 100.0,
  date('2015-01-01', '+' || (i %% 3650) || ' days'), 'ORD-' || printf('%%09d', i),
  CASE WHEN i %% 10 = 0 THEN 'gift wrap ' || (i %% 50) END FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %[3]d)
INSERT INTO reviews SELECT i, (i * 3) %% %[2]d + 1, 1 + (i * i) %% 5, 'Review title ' || (i %% 300),
  printf('%%.250c', 'x') || i FROM n;
`, s.Customers, s.Orders, s.Reviews, nameSQL("i"), strings.Join(statuses, " "))
}

// Build makes the database of n orders (For(n)) in a directory of tb's
// and returns its path.
func Build(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), fmt.Sprintf("shop_%d.sqlite", n))
	if err := sqlite.Build(context.Background(), path, Script(For(n))); err != nil {
		tb.Fatal(err)
	}
	return path
}
