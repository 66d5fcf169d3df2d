package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/env"
)

func seqRows(n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i + 1), fmt.Sprintf("name %d", i+1)}
	}
	return rows
}

func TestRenderRowsGolden(t *testing.T) {
	long := strings.Repeat("abcdefghij", 30)
	tests := []struct {
		name string
		cfg  Config
		rs   env.ResultSet
	}{
		{"rows_basic", Config{}, env.ResultSet{
			Columns: []string{"avg(age)", "min(age)", "name", "country"},
			Rows:    [][]any{{34.5, int64(29), "Joe Sharp", "Netherlands"}, {nil, int64(-3), "", nil}},
		}},
		{"rows_one", Config{}, env.ResultSet{Columns: []string{"count(*)"}, Rows: [][]any{{int64(6)}}}},
		{"rows_empty", Config{}, env.ResultSet{Columns: []string{"a", "b"}}},
		{"rows_no_columns", Config{}, env.ResultSet{}},
		{"rows_floats", Config{}, env.ResultSet{
			Columns: []string{"x"},
			Rows: [][]any{{3.0}, {0.30000000000000004}, {1e-5}, {0.0001}, {1e16}, {123456789.125}, {math.Copysign(0, -1)},
				{math.NaN()}, {math.Inf(1)}, {math.Inf(-1)}, {float64(1 << 53)}, {-2.5e-300}},
		}},
		{"rows_blobs_and_text", Config{}, env.ResultSet{
			Columns: []string{"photo", "note", "flag"},
			Rows: [][]any{{[]byte{0xff, 0, 1}, "line one\nline two\ttab", true},
				{[]byte{}, "naïve café ✓", false}, {nil, "bad \xff utf8", nil}},
		}},
		{"rows_row_limit", Config{RowLimit: 5}, env.ResultSet{Columns: []string{"id", "name"}, Rows: seqRows(8)}},
		{"rows_engine_truncated", Config{RowLimit: 5}, env.ResultSet{Columns: []string{"id", "name"}, Rows: seqRows(5), Truncated: true}},
		{"rows_engine_cut_short", Config{RowLimit: 5}, env.ResultSet{Columns: []string{"id", "name"}, Rows: seqRows(3), Truncated: true}},
		{"rows_byte_cut_more", Config{ObservationBytes: 600, RowLimit: 3}, env.ResultSet{
			Columns: []string{"id", "text"},
			Rows:    [][]any{{int64(1), long}, {int64(2), long}, {int64(3), long}, {int64(4), long}},
		}},
		{"rows_long_cells", Config{CellChars: 20}, env.ResultSet{
			Columns: []string{"short", strings.Repeat("very_long_column_name_", 3)},
			Rows:    [][]any{{"ok", long}, {"ünïcödé", strings.Repeat("é", 25)}},
		}},
		{"rows_byte_cut", Config{ObservationBytes: 600}, env.ResultSet{
			Columns: []string{"id", "text"},
			Rows:    [][]any{{int64(1), long}, {int64(2), long}, {int64(3), long}, {int64(4), long}},
		}},
		{"rows_wide_header", Config{ObservationBytes: 300}, env.ResultSet{Columns: wideColumns(80), Rows: [][]any{{int64(1)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRunner(tt.cfg)
			got := r.RenderRows(&tt.rs)
			if len(got) > r.Config().ObservationBytes-tailReserve {
				t.Errorf("%d bytes, over the budget of %d", len(got), r.Config().ObservationBytes-tailReserve)
			}
			if !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8: %q", got)
			}
			if again := r.RenderRows(&tt.rs); again != got {
				t.Errorf("not deterministic:\n%s\n%s", got, again)
			}
			golden(t, tt.name, got+"\n")
		})
	}
}

func wideColumns(n int) []string {
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("column_number_%d", i)
	}
	return cols
}

// TestRenderRowsWithinBound checks the byte bound across many shapes and
// small caps.
func TestRenderRowsWithinBound(t *testing.T) {
	cell := strings.Repeat("日本", 200)
	for _, obs := range []int{1, 10, 40, 100, 333, 1000, 8192} {
		for _, n := range []int{0, 1, 7, 60} {
			rs := &env.ResultSet{Columns: []string{"a", "b", "c"}}
			for i := 0; i < n; i++ {
				rs.Rows = append(rs.Rows, []any{cell, int64(i), 1.5})
			}
			r := NewRunner(Config{ObservationBytes: obs})
			got := r.RenderRows(rs)
			if len(got) > obs || !utf8.ValidString(got) {
				t.Errorf("obs %d rows %d: %d bytes (valid UTF-8 %v)", obs, n, len(got), utf8.ValidString(got))
			}
			if full := r.TurnsLeft(got, 3); len(full) > obs || !utf8.ValidString(full) {
				t.Errorf("obs %d rows %d: with turns left %d bytes", obs, n, len(full))
			}
		}
	}
}

func TestFormatValue(t *testing.T) {
	tenth := 0.1
	tests := []struct {
		v    any
		want string
	}{
		{nil, "NULL"}, {int64(-7), "-7"}, {34.5, "34.5"}, {3.0, "3.0"}, {0.0, "0.0"}, {1e-5, "1e-05"},
		{1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {tenth + 2*tenth, "0.30000000000000004"},
		{"x", "x"}, {[]byte("abc"), "<blob 3 bytes>"}, {true, "true"}, {int32(5), "5"},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.v); got != tt.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestJSONRows(t *testing.T) {
	rows := [][]any{{nil, int64(1), 2.5, "a\xffb", []byte{1, 2}, math.NaN(), math.Inf(-1), true, time.Duration(5)}}
	got, err := json.Marshal(JSONRows(rows))
	if err != nil {
		t.Fatal(err)
	}
	want := `[[null,1,2.5,"a�b","\u003cblob 2 bytes\u003e","NaN","-Inf",true,"5ns"]]`
	if string(got) != want {
		t.Fatalf("JSONRows = %s, want %s", got, want)
	}
	if rows[0][4].([]byte)[0] != 1 {
		t.Fatal("JSONRows changed its input")
	}
}

// TestJSONRowsCopiesOnlyWhatChanges: values that are already JSON-safe
// are not copied, rows or values, and the output is what a full copy
// would encode to.
func TestJSONRowsCopiesOnlyWhatChanges(t *testing.T) {
	safe := [][]any{{int64(1), "a", 2.5, nil, true}, {int64(2), "b", 0.5, nil, false}}
	if got := JSONRows(safe); &got[0] != &safe[0] {
		t.Error("rows with nothing to convert were copied")
	}
	mixed := [][]any{{int64(1), "ok"}, {int64(2), "bad\xff"}, {int64(3), "ok"}}
	got := JSONRows(mixed)
	if &got[0][0] != &mixed[0][0] || &got[2][0] != &mixed[2][0] {
		t.Error("a row with nothing to convert was copied")
	}
	if got[1][1] != "bad\uFFFD" || got[1][0] != int64(2) || mixed[1][1] != "bad\xff" {
		t.Errorf("converted row %v from %v", got[1], mixed[1])
	}
	for _, tt := range []struct {
		rows [][]any
		want string
	}{
		{nil, `[]`}, {[][]any{}, `[]`}, {[][]any{nil, {}}, `[[],[]]`}, {[][]any{{"x"}, nil}, `[["x"],[]]`},
	} {
		b, err := json.Marshal(JSONRows(tt.rows))
		if err != nil || string(b) != tt.want {
			t.Errorf("JSONRows(%#v) encodes to %s, %v; want %s", tt.rows, b, err, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 5, "hello"}, {"hello", 4, "h…"}, {"hello", 2, "he"}, {"héllo", 5, "h…"},
		{"日本語", 8, "日…"}, {"日本語", 2, ""}, {"abc", 0, ""},
	}
	for _, tt := range tests {
		if got := clip(tt.s, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
