package sandbox

import "testing"

func TestSplitSource(t *testing.T) {
	for _, c := range []struct{ in, url, name, err string }{
		{"postgres://h:5432/d?x=%23#shop", "postgres://h:5432/d?x=%23", "shop", ""},
		{"mysql://root@h/#a#b", "mysql://root@h/#a", "b", ""},
		{"mysql://root@h/", "", "", "want mysql://URL#DATABASE: no database after '#'"},
		{"mysql://root@h/#", "", "", "want mysql://URL#DATABASE: empty database"},
	} {
		url, name, err := SplitSource(c.in, "mysql://URL#DATABASE", "database")
		if url != c.url || name != c.name || (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("SplitSource(%q) = %q, %q, %v; want %q, %q, %q", c.in, url, name, err, c.url, c.name, c.err)
		}
	}
}
