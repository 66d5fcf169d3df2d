package valueindex

import (
	"context"
	"errors"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// TestDemoHandCases checks the answers of hand-written searches on the
// demo's databases: exact, case, accents, typos, narrowing.
func TestDemoHandCases(t *testing.T) {
	ds, cat := demoDataset(t)
	s := newStore(t, t.TempDir(), nil)
	cases := []struct {
		name, db, query, table, column string
		want                           string // table.column = value of the first match
	}{
		{"exact", "library", "Jane Austen", "", "", "authors.name = Jane Austen"},
		{"lower case", "library", "jane austen", "", "", "authors.name = Jane Austen"},
		{"one typo", "library", "Jane Austin", "", "", "authors.name = Jane Austen"},
		{"no accents", "library", "Gabriel Garcia Marquez", "", "", "authors.name = Gabriel García Márquez"},
		{"one word", "library", "Marquez", "", "", "authors.name = Gabriel García Márquez"},
		{"country", "library", "united kingdom", "", "", "authors.country = United Kingdom"},
		{"typo in a city", "library", "Harogate", "", "", "members.city = Harrogate"},
		{"narrowed to a column", "library", "Leeds", "members", "city", "members.city = Leeds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := search(t, s, ds, cat, c.db, env.ValueQuery{Query: c.query, Table: c.table, Column: c.column, Limit: 5})
			if len(m.Matches) == 0 {
				t.Fatalf("no match for %q", c.query)
			}
			got := m.Matches[0].Table + "." + m.Matches[0].Column + " = " + m.Matches[0].Value
			if got != c.want {
				t.Errorf("first match for %q = %s, want %s (all: %+v)", c.query, got, c.want, m.Matches)
			}
		})
	}
}

func TestDemoNarrowingErrors(t *testing.T) {
	ds, cat := demoDataset(t)
	s := newStore(t, t.TempDir(), nil)
	db, err := cat.DB(context.Background(), ds, "library")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table, column string
		kind          error
	}{
		{"nope", "", env.ErrNoSuchTable},
		{"authors", "nope", env.ErrNoSuchColumn},
		{"", "nope", env.ErrNoSuchColumn},
	} {
		_, err := s.SearchValues(context.Background(), ds, "library", db,
			env.ValueQuery{Query: "Leeds", Table: c.table, Column: c.column, Limit: 5})
		var qe *env.QueryError
		if !errors.As(err, &qe) || !errors.Is(err, c.kind) {
			t.Errorf("table %q column %q: error %v, want a %v query error", c.table, c.column, err, c.kind)
		}
	}
}

func TestDemoNoMatch(t *testing.T) {
	ds, cat := demoDataset(t)
	s := newStore(t, t.TempDir(), nil)
	m := search(t, s, ds, cat, "library", env.ValueQuery{Query: "qqqqxxxx zzzzvvvv", Limit: 5})
	if len(m.Matches) != 0 {
		t.Errorf("matches for nonsense: %+v", m.Matches)
	}
	m = search(t, s, ds, cat, "library", env.ValueQuery{Query: "!!!", Limit: 5})
	if len(m.Matches) != 0 {
		t.Errorf("matches for punctuation: %+v", m.Matches)
	}
}
