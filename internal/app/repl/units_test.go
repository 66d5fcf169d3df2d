package repl

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

func TestTableRender(t *testing.T) {
	raw := func(vals ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(vals))
		for i, v := range vals {
			out[i] = json.RawMessage(v)
		}
		return out
	}
	tests := []struct {
		name  string
		table *table
		width int
		want  []string
	}{
		{"numbers right, text left, no limit", resultTable([]string{"name", "n"},
			[][]json.RawMessage{raw(`"Jane Austen"`, `4`), raw(`"Emma"`, `12`)}), 0,
			[]string{" name        | n", "-------------+---", " Jane Austen |  4", " Emma        | 12"}},
		{"NULL keeps a number column right", resultTable([]string{"x"}, [][]json.RawMessage{raw(`1.5`), raw(`null`)}), 0,
			[]string{" x", "-----", "  1.5", " NULL"}},
		{"the widest column narrows first", plainTable([]string{"id", "question"},
			[][]string{{"demo/a-1", "How many different titles are there in the library?"}}), 30,
			[]string{" id       | question", "----------+-------------------", " demo/a-1 | How many differen…"}},
		{"every column narrows to fit", plainTable([]string{"aaaaaaaaaa", "bbbbbbbbbb"},
			[][]string{{"1234567890", "1234567890"}}), 15,
			[]string{" aaaaa… | bbbb…", "--------+------", " 12345… | 1234…"}},
		{"wide characters are measured by display width", plainTable([]string{"city"}, [][]string{{"東京"}, {"Oslo"}}), 0,
			[]string{" city", "-----", " 東京", " Oslo"}},
		{"control characters are escaped", plainTable([]string{"s"}, [][]string{{"a\nb\tc\x01"}}), 0,
			[]string{" s", "------------", ` a\nb\tc\x01`}},
		{"no rows", resultTable([]string{"a", "b"}, nil), 0, []string{" a | b", "---+--"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.table.render(tt.width)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCell(t *testing.T) {
	tests := []struct {
		raw, want string
		num       bool
	}{
		{`null`, "NULL", false},
		{`"text"`, "text", false},
		{`"two\nlines"`, `two\nlines`, false},
		{`9007199254740993`, "9007199254740993", true},
		{`-0.5`, "-0.5", true},
		{`1e+300`, "1e+300", true},
		{`true`, "true", false},
		{`"<blob 3 bytes>"`, "<blob 3 bytes>", false},
	}
	for _, tt := range tests {
		got, num := cell(json.RawMessage(tt.raw))
		if got != tt.want || num != tt.num {
			t.Errorf("cell(%s) = %q, %v; want %q, %v", tt.raw, got, num, tt.want, tt.num)
		}
	}
}

func TestComplete(t *testing.T) {
	tests := []struct {
		sql  string
		want bool
	}{
		{"SELECT 1;", true},
		{"SELECT 1", false},
		{"SELECT 1;  ", true},
		{"SELECT 1; -- done", true},
		{"SELECT ';'", false},
		{"SELECT 'a;\nb';", true},
		{"SELECT \"x;\"", false},
		{"SELECT 1 /* ; */", false},
		{"SELECT 1; /* open", false},
		{"SELECT 1 -- ;", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := complete(tt.sql); got != tt.want {
			t.Errorf("complete(%q) = %v, want %v", tt.sql, got, tt.want)
		}
	}
}

func TestHistoryEntry(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"SELECT a,\n  b\nFROM t;", "SELECT a, b FROM t;"},
		{"SELECT 1 -- one\n  + 2;", "SELECT 1 + 2;"},
		{"SELECT 'two  spaces';", "SELECT 'two  spaces';"},
		{"SELECT 'a\nb';", "SELECT 'a b';"},
		{".reset demo/library-001", ".reset demo/library-001"},
	}
	for _, tt := range tests {
		if got := historyEntry(tt.cmd); got != tt.want {
			t.Errorf("historyEntry(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestParseReset(t *testing.T) {
	seven := int64(7)
	tests := []struct {
		args    string
		want    resetArgs
		wantErr string
	}{
		{"", resetArgs{}, ""},
		{"demo/library-001", resetArgs{target: "demo/library-001"}, ""},
		{"demo --seed 7 --format tags", resetArgs{target: "demo", seed: &seven, format: "tags"}, ""},
		{"--seed=7 --format=hermes", resetArgs{seed: &seven, format: "hermes"}, ""},
		{"--seed", resetArgs{}, "--seed needs a value"},
		{"--seed 1.5", resetArgs{}, "--seed must be an integer"},
		{"a b", resetArgs{}, "one task id or dataset"},
		{"--turns 3", resetArgs{}, "unknown flag --turns"},
	}
	for _, tt := range tests {
		got, err := parseReset(strings.Fields(tt.args))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseReset(%q) error = %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseReset(%q) = %+v, %v; want %+v", tt.args, got, err, tt.want)
		}
	}
}

func TestDefaultHistoryFile(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/state", "HOME": "/home/u"}, "/state/sqlgym/history"},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/u"}, "/home/u/.sqlgym_history"},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.sqlgym_history"},
		{map[string]string{}, ""},
	}
	for _, tt := range tests {
		if got := DefaultHistoryFile(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("DefaultHistoryFile(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

// lines is history as saveHistory gets it.
type lines []string

func (l lines) WriteHistory(w io.Writer) (int, error) {
	for i, s := range l {
		if _, err := io.WriteString(w, s+"\n"); err != nil {
			return i, err
		}
	}
	return len(l), nil
}

func TestSaveHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "history")
	for _, h := range []lines{{"one"}, {"one", "two"}} {
		if err := saveHistory(path, h); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if want := strings.Join(h, "\n") + "\n"; err != nil || string(got) != want {
			t.Errorf("history file = %q, %v; want %q", got, err, want)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode = %v, %v; want 0600", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the history folder holds %d files, want only the history (no temporary file left)", len(entries))
	}
	blocked := filepath.Join(path, "under-a-file")
	if err := saveHistory(blocked, lines{"x"}); err == nil {
		t.Errorf("saving under a file succeeded")
	}
}

func TestNum(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-0.02, "-0.02"}, {0.1 + 0.2, "0.3"}, {-1e-9, "0"}, {0.98, "0.98"},
	}
	for _, tt := range tests {
		if got := num(tt.v); got != tt.want {
			t.Errorf("num(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestPairs(t *testing.T) {
	got := pairs(schemas.TurnReward{ToolError: -0.02, FormatError: -0.05, Repeat: -0.02, Cap: 0.2})
	want := "tool_error -0.02, format_error -0.05, repeat -0.02, ok 0, cap 0.2"
	if got != want {
		t.Errorf("pairs = %q, want %q", got, want)
	}
}

func TestComponents(t *testing.T) {
	tests := []struct {
		c    map[string]float64
		want string
	}{
		{nil, ""},
		{map[string]float64{"turn.ok": 0, "final.correct": 1}, " (final.correct 1, turn.ok 0)"},
	}
	for _, tt := range tests {
		if got := components(tt.c); got != tt.want {
			t.Errorf("components(%v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestColorWanted(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"TERM": "xterm"}, true},
		{map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, false},
		{map[string]string{"TERM": "dumb"}, false},
	}
	for _, tt := range tests {
		if got := colorWanted(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("colorWanted(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
}

func TestCallText(t *testing.T) {
	tests := []struct {
		tool, args, want string
	}{
		{"execute_sql", `{"sql": "SELECT 1"}`, "execute_sql: SELECT 1"},
		{"inspect_schema", `{ "table": "t" }`, `inspect_schema {"table":"t"}`},
		{"inspect_schema", ``, "inspect_schema {}"},
		{"submit", `{"nope": 1}`, `submit {"nope":1}`},
	}
	for _, tt := range tests {
		if got := callText(tt.tool, json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("callText(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}
