package dbgen

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestGoldLiteralsSeedColumns(t *testing.T) {
	p := analyze(t, source(t, companyScript), companyGolds, Config{MaxRows: 80})
	tests := []struct {
		col  string
		lits []string // Describe's Literals
		want []any    // values the pool holds and some generated database shows
	}{
		{"emp.age", []string{"30", "40"}, []any{int64(29), int64(30), int64(31), int64(39), int64(40), int64(41)}},
		{"dept.name", []string{"'Sales'"}, []any{"Sales", "SALES", "sales", "xSales", "Salesx", "ales", "Sale"}},
		{"dept.budget", []string{"100", "2000.5", "0", "50"}, []any{100.0, 99.99, 100.01, 2000.5, 2000.49, 2000.51, 0.0, 0.01, 50.0, 49.99}},
		{"emp.name", []string{"'Ann'", "'Zed'", "'%nn%'"}, []any{"Ann", "Zed", "ANN", "zed", "nn", "xnnx", "n"}},
		{"emp.hired", []string{"'2012-07-15 10:30:00'"}, []any{"2012-07-15 10:30:00", "2012-07-14 10:30:00", "2012-07-16 10:30:00"}},
		{"dept.founded", []string{"'2004'"}, []any{"2003", "2004", "2005"}},
		{"emp.level", []string{"'3'"}, []any{"2", "3", "4"}},
	}
	desc := describedColumns(p.Describe())
	for _, tt := range tests {
		c := p.s.col(refOf(t, p, tt.col))
		if got := desc[tt.col].Literals; !slices.Equal(got, tt.lits) {
			t.Errorf("%s: literals %q, want %q", tt.col, got, tt.lits)
		}
		for _, v := range tt.want {
			if !slices.ContainsFunc(c.values, func(x any) bool { return sameValue(x, v) }) {
				t.Errorf("%s: pool lacks %#v", tt.col, v)
			}
		}
	}
	seen := appearances(t, p, 16)
	for _, tt := range tests {
		for _, v := range tt.want {
			if !seen[tt.col+"="+fmt.Sprintf("%T:%v", v, v)] {
				t.Errorf("%s: %#v appears in no generated database", tt.col, v)
			}
		}
	}
}

// appearances lists "table.column=type:value" for every value seen in the
// databases of seeds 0 to n-1.
func appearances(t *testing.T, p *Plan, n uint64) map[string]bool {
	seen := map[string]bool{}
	for seed := range n {
		conn := reader(t, must(generated(t, p, seed)))
		for _, tb := range p.s.tables {
			for _, c := range tb.columns {
				rows, err := conn.QueryContext(t.Context(), fmt.Sprintf("SELECT DISTINCT +%s FROM %s", quoteIdent(c.name), quoteIdent(tb.name)))
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var v any
					if err := rows.Scan(&v); err != nil {
						t.Fatal(err)
					}
					seen[tb.name+"."+c.name+"="+fmt.Sprintf("%T:%v", v, v)] = true
				}
				rows.Close()
			}
		}
	}
	return seen
}

// describedColumns maps "table.column" to its description.
func describedColumns(d Description) map[string]ColumnDescription {
	out := map[string]ColumnDescription{}
	for _, t := range d.Tables {
		for _, c := range t.Columns {
			out[t.Name+"."+c.Name] = c
		}
	}
	return out
}

// refOf finds "table.column" in the plan's schema.
func refOf(tb testing.TB, p *Plan, name string) colRef {
	tb.Helper()
	tn, cn, _ := strings.Cut(name, ".")
	ti, ok := p.s.table(tn)
	if !ok {
		tb.Fatalf("no table %s", tn)
	}
	ci, ok := p.s.tables[ti].column(cn)
	if !ok {
		tb.Fatalf("no column %s", name)
	}
	return colRef{ti, ci}
}

// sameValue reports whether two values are equal in class and value.
func sameValue(a, b any) bool {
	return fmt.Sprintf("%T:%v", a, a) == fmt.Sprintf("%T:%v", b, b)
}

func TestLikeSeedsMatchAndMiss(t *testing.T) {
	tests := []string{"%nn%", "a%", "%z", "_b%", "korea", "%w%", "100%"}
	for _, pattern := range tests {
		got := likeTexts(pattern, []string{"Annie", "korea", "Bob"})
		var match, miss int
		for _, s := range got {
			if likeMatch(pattern, s) {
				match++
			} else {
				miss++
			}
		}
		if match == 0 || miss == 0 {
			t.Errorf("likeTexts(%q) = %q: %d match, %d do not; want some of each", pattern, got, match, miss)
		}
	}
}

func TestNumberTexts(t *testing.T) {
	ints, reals := &colStats{kind: kindInt}, &colStats{kind: kindReal, decimals: 2}
	tests := []struct {
		text string
		s    *colStats
		want []string
	}{
		{"30", ints, []string{"29", "30", "31"}},
		{"-5", ints, []string{"-6", "-5", "-4"}},
		{"30", reals, []string{"29", "30", "31", "29.99", "30", "30.00", "30.01", "30", "30"}},
		{"2.5", ints, []string{"2.4", "2.5", "2.5", "2.6", "2", "3"}},
		{"2.5", reals, []string{"2.49", "2.5", "2.50", "2.51", "2", "3"}},
		{"abc", ints, []string{"abc"}},
	}
	for _, tt := range tests {
		if got := numberTexts(tt.text, tt.s); !slices.Equal(got, tt.want) {
			t.Errorf("numberTexts(%q, kind %d) = %q, want %q", tt.text, tt.s.kind, got, tt.want)
		}
	}
}

func TestDateTexts(t *testing.T) {
	tests := []struct {
		text, layout string
		want         []string
	}{
		{"2012-07-15", "", []string{"2012-07-15", "2012-07-14", "2012-07-15", "2012-07-16"}},
		{"2012-03-01", "2006-01-02 15:04:05", []string{"2012-03-01", "2012-02-29", "2012-03-01", "2012-03-02",
			"2012-02-29 00:00:00", "2012-03-01 00:00:00", "2012-03-02 00:00:00"}},
	}
	for _, tt := range tests {
		if got := dateTexts(tt.text, tt.layout); !slices.Equal(got, tt.want) {
			t.Errorf("dateTexts(%q, %q) = %q, want %q", tt.text, tt.layout, got, tt.want)
		}
	}
}

func TestTextVariants(t *testing.T) {
	got := textVariants("Kyle")
	want := []string{"Kyle", "KYLE", "kyle", "kyle", "xKyle", "Kylex", "yle", "Kyl"}
	if !slices.Equal(got, want) {
		t.Errorf("textVariants(Kyle) = %q, want %q", got, want)
	}
	if got := textVariants("é"); !slices.Equal(got, []string{"é", "É", "é", "É", "xé", "éx"}) {
		t.Errorf("textVariants(é) = %q", got)
	}
}
