package sqltext

import "testing"

// FuzzTieRewrites reads any text as a statement: nothing panics, and a
// probe or tie-break, when there is one, keeps every string, quoted
// identifier and comment of the statement byte for byte and in order, and
// reads back as a statement with the ORDER BY and window it should have.
func FuzzTieRewrites(f *testing.F) {
	for _, seed := range []string{
		"SELECT name FROM t ORDER BY age DESC LIMIT 1",
		"SELECT a, count(*) AS c FROM t GROUP BY 1 ORDER BY c DESC, 1 LIMIT 2, 3;",
		"WITH c AS (SELECT * FROM t ORDER BY a LIMIT 3) (SELECT a FROM c ORDER BY b OFFSET 2 ROWS FETCH FIRST 3 ROWS ONLY)",
		"SELECT \"x\" FROM `t` /* ORDER BY */ WHERE s = 'LIMIT 1' ORDER BY [y] COLLATE nocase NULLS LAST -- end",
		"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 1 OFFSET 2",
		"SELECT DISTINCT a FROM t ORDER BY a LIMIT ALL",
		"SELECT * FROM t LIMIT /*c*/ 5 --x\n",
		"SELECT a FROM t ORDER BY b-OFFSET 1--end\n",
		"SELECT $$a$$, E'\\'' FROM t ORDER BY $q$b$q$ LIMIT -1",
		"((SELECT a x FROM t ORDER BY x, t.a));",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		o, read := TopOrder(sql)
		OutputCount(sql)
		if p, ok := TieProbe(sql, 3); ok {
			checkRewrite(t, sql, p.SQL, len(o.Terms))
			if !read || len(p.KeyCols) != len(o.Terms) || p.Window != o.Window {
				t.Errorf("TieProbe(%q) = %+v, but TopOrder reads %+v, %v", sql, p, o, read)
			}
			checkWidened(t, p)
		}
		if tb, ok := TieBreak(sql, 2); ok {
			checkRewrite(t, sql, tb, len(o.Terms)+2)
		}
	})
}

// checkRewrite checks a rewrite of sql: its strings, quoted identifiers
// and comments hold sql's, and it reads back with terms ORDER BY terms.
func checkRewrite(t *testing.T, sql, rewrite string, terms int) {
	t.Helper()
	if !keeps(rewrite, sql) {
		t.Errorf("rewrite of %q: %q does not keep its strings, identifiers and comments", sql, rewrite)
	}
	if got, ok := TopOrder(rewrite); !ok || len(got.Terms) != terms {
		t.Errorf("rewrite of %q: %q reads as %+v, %v; want %d terms", sql, rewrite, got, ok, terms)
	}
}

// checkWidened checks that a probe's window starts at the first row and
// keeps the statement's rows and 3 more.
func checkWidened(t *testing.T, p Probe) {
	t.Helper()
	w, _ := TopOrder(p.SQL)
	want := Window{}
	if p.Window.HasLimit && p.Window.Offset+p.Window.Limit < 1<<62 {
		want = Window{Limit: p.Window.Offset + p.Window.Limit + 3, HasLimit: true}
	}
	if w.Window != want {
		t.Errorf("probe %q has the window %+v, want %+v", p.SQL, w.Window, want)
	}
}

// keeps reports whether the strings, quoted identifiers and comments of
// sql are, in order, among those of rewrite.
func keeps(rewrite, sql string) bool {
	want := protected(sql)
	for _, t := range protected(rewrite) {
		if len(want) > 0 && t == want[0] {
			want = want[1:]
		}
	}
	return len(want) == 0
}

// protected lists the strings, quoted identifiers and comments of sql.
func protected(sql string) []string {
	var out []string
	for t := range All(sql) {
		if t.Kind == String || t.Kind == Ident || t.Kind == Comment {
			out = append(out, t.Text)
		}
	}
	return out
}
