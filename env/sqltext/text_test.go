package sqltext

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestStatements(t *testing.T) {
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT 1", []string{"SELECT 1"}},
		{"SELECT 1;", []string{"SELECT 1"}},
		{"SELECT 1; -- done\n", []string{"SELECT 1"}},
		{"SELECT 1;;  ;", []string{"SELECT 1"}},
		{"SELECT ';'", []string{"SELECT ';'"}},
		{`SELECT "a;b" FROM t`, []string{`SELECT "a;b" FROM t`}},
		{"SELECT 1 /* ; */", []string{"SELECT 1 /* ; */"}},
		{"SELECT 1; DROP TABLE t", []string{"SELECT 1", "DROP TABLE t"}},
		{"SELECT 1 --; DROP TABLE t\n; DELETE FROM t", []string{"SELECT 1 --; DROP TABLE t", "DELETE FROM t"}},
		{"SELECT 'it''s; fine'; SELECT 2", []string{"SELECT 'it''s; fine'", "SELECT 2"}},
		{"SELECT $$a;b$$", []string{"SELECT $$a;b$$"}},
		{"SELECT $x$ ; $x$; COMMIT", []string{"SELECT $x$ ; $x$", "COMMIT"}},
		{"SELECT E'\\'; x'", []string{"SELECT E'\\'; x'"}},
		{"SELECT [a;b] FROM t", []string{"SELECT [a;b] FROM t"}},
		{"  -- only a comment\n", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := Statements(tt.sql); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Statements(%q) = %q, want %q", tt.sql, got, tt.want)
		}
		if got := Empty(tt.sql); got != (len(tt.want) == 0) {
			t.Errorf("Empty(%q) = %v, want %v", tt.sql, got, len(tt.want) == 0)
		}
		first, n := FirstStatement(tt.sql)
		if n != len(tt.want) || n > 0 && first != tt.want[0] || n == 0 && first != "" {
			t.Errorf("FirstStatement(%q) = %q, %d; want the first of %q and their count", tt.sql, first, n, tt.want)
		}
	}
	for _, sql := range []string{";", " ; ;\n", "/* c */ ;", "-- a\n;-- b"} {
		if !Empty(sql) || len(Statements(sql)) != 0 {
			t.Errorf("Empty(%q) = %v, Statements = %q; want true and none", sql, Empty(sql), Statements(sql))
		}
	}
}

func TestFirstKeyword(t *testing.T) {
	tests := map[string]string{
		"select 1":                "SELECT",
		"  /* x */ -- y\n with a": "WITH",
		"((SELECT 1))":            "SELECT",
		"VACUUM INTO 'x'":         "VACUUM",
		"'str'":                   "",
		"":                        "",
	}
	for sql, want := range tests {
		if got := FirstKeyword(sql); got != want {
			t.Errorf("FirstKeyword(%q) = %q, want %q", sql, got, want)
		}
	}
}

func TestStripDistinct(t *testing.T) {
	tests := map[string]string{
		"SELECT DISTINCT a FROM t":           "SELECT  a FROM t",
		"select count(distinct a) from t":    "select count( a) from t",
		"SELECT 'DISTINCT' FROM t":           "SELECT 'DISTINCT' FROM t",
		`SELECT "distinct" FROM t`:           `SELECT "distinct" FROM t`,
		"SELECT distinctive FROM t":          "SELECT distinctive FROM t",
		"SELECT a FROM t -- distinct\n":      "SELECT a FROM t -- distinct\n",
		"SELECT Distinct a, DISTINCT b FROM": "SELECT  a,  b FROM",
	}
	for sql, want := range tests {
		if got := StripDistinct(sql); got != want {
			t.Errorf("StripDistinct(%q) = %q, want %q", sql, got, want)
		}
	}
}

func TestHasOrderBy(t *testing.T) {
	tests := map[string]bool{
		"SELECT a FROM t ORDER BY a":  true,
		"select a from t order by a":  true,
		"SELECT a FROM t ORDER  BY a": false, // the official rule is a substring test
		"SELECT a FROM t":             false,
	}
	for sql, want := range tests {
		if got := HasOrderBy(sql); got != want {
			t.Errorf("HasOrderBy(%q) = %v, want %v", sql, got, want)
		}
	}
}

func TestNormalize(t *testing.T) {
	a := Normalize("SELECT  a\n FROM t -- why\n;")
	b := Normalize("select a from T")
	if a != b {
		t.Errorf("Normalize: %q != %q", a, b)
	}
	if Normalize("SELECT 'A'") == Normalize("SELECT 'a'") {
		t.Error("Normalize must not fold the case of strings")
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"SELECT 1; DROP", "'a''b", "/* x", "$$ y", "E'\\", "[x", `"q""`, "$1 $a$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		var b strings.Builder
		for _, tok := range Tokens(sql) {
			if tok.Text == "" {
				t.Fatalf("empty token in %q", sql)
			}
			b.WriteString(tok.Text)
		}
		if b.String() != sql {
			t.Fatalf("tokens do not give %q back", sql)
		}
		for _, st := range Statements(sql) {
			if len(Statements(st)) != 1 {
				t.Fatalf("statement %q of %q splits again", st, sql)
			}
		}
		if Empty(sql) != (len(Statements(sql)) == 0) {
			t.Fatalf("Empty(%q) = %v, but Statements gives %q", sql, Empty(sql), Statements(sql))
		}
	})
}

// FuzzAgainstTokens checks the functions that read tokens one by one
// against the same questions answered over the Tokens slice, the plain way.
func FuzzAgainstTokens(f *testing.F) {
	for _, s := range []string{"SELECT  a\n FROM T -- x\n;;", "a;;b ; ", "SELECT 'A' ;x;", "ÉCOLE ; Ä", "/* ; */ ;", ";"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		norm := normalizePlain(sql)
		if got := Normalize(sql); got != norm {
			t.Fatalf("Normalize(%q) = %q, want %q", sql, got, norm)
		}
		if got := NormalizeAfter("tool\x00", sql); got != "tool\x00"+norm {
			t.Fatalf("NormalizeAfter(%q) = %q, want the prefix and %q", sql, got, norm)
		}
		want := statementsPlain(sql)
		if got := Statements(sql); !slices.Equal(got, want) {
			t.Fatalf("Statements(%q) = %q, want %q", sql, got, want)
		}
		if first, n := FirstStatement(sql); n != len(want) || n > 0 && first != want[0] {
			t.Fatalf("FirstStatement(%q) = %q, %d; want the first of %q and their count", sql, first, n, want)
		}
	})
}

func TestNormalizeMatchesThePlainWay(t *testing.T) {
	for _, sql := range []string{"SELECT  a\n FROM T -- x\n;;", "a ; ; b ;", "SELECT Ünïcode FROM \"T\"", "", ";;", "select 1;\n"} {
		if got, want := Normalize(sql), normalizePlain(sql); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", sql, got, want)
		}
		if got, want := NormalizeAfter("x ", sql), "x "+normalizePlain(sql); got != want {
			t.Errorf("NormalizeAfter(%q) = %q, want %q", sql, got, want)
		}
		if got, want := Statements(sql), statementsPlain(sql); !slices.Equal(got, want) {
			t.Errorf("Statements(%q) = %q, want %q", sql, got, want)
		}
	}
}

// normalizePlain is Normalize written over the Tokens slice.
func normalizePlain(sql string) string {
	var parts []string
	for _, t := range Tokens(sql) {
		switch t.Kind {
		case Space, Comment:
			continue
		case Word:
			parts = append(parts, strings.ToLower(t.Text))
		default:
			parts = append(parts, t.Text)
		}
	}
	for len(parts) > 0 && parts[len(parts)-1] == ";" {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, " ")
}

// statementsPlain is Statements written over the Tokens slice.
func statementsPlain(sql string) []string {
	var out []string
	var b strings.Builder
	substantive := false
	flush := func() {
		if st := strings.TrimSpace(b.String()); substantive && st != "" {
			out = append(out, st)
		}
		b.Reset()
		substantive = false
	}
	for _, t := range Tokens(sql) {
		if t.Kind == Semicolon {
			flush()
			continue
		}
		if t.Kind != Space && t.Kind != Comment {
			substantive = true
		}
		b.WriteString(t.Text)
	}
	flush()
	return out
}
