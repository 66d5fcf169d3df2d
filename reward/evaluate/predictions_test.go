package evaluate

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseSpider(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Prediction
	}{
		{"empty file", "", []Prediction{}},
		{"one line without newline", "SELECT 1", []Prediction{{SQL: "SELECT 1", Pos: "line 1"}}},
		{"with db_id", "SELECT 1\tshop\nSELECT 2\tzoo_1\n", []Prediction{
			{SQL: "SELECT 1", DBID: "shop", Pos: "line 1"}, {SQL: "SELECT 2", DBID: "zoo_1", Pos: "line 2"}}},
		{"empty lines are predictions", "SELECT 1\n\n  \nSELECT 4\n", []Prediction{
			{SQL: "SELECT 1", Pos: "line 1"}, {SQL: "", Pos: "line 2"}, {SQL: "", Pos: "line 3"}, {SQL: "SELECT 4", Pos: "line 4"}}},
		{"a last empty line ended by a newline counts", "SELECT 1\n\n", []Prediction{
			{SQL: "SELECT 1", Pos: "line 1"}, {SQL: "", Pos: "line 2"}}},
		{"CRLF and BOM", "\xef\xbb\xbfSELECT 1\tshop\r\nSELECT 2\r\n", []Prediction{
			{SQL: "SELECT 1", DBID: "shop", Pos: "line 1"}, {SQL: "SELECT 2", Pos: "line 2"}}},
		{"a tab inside the SQL is not a db_id", "SELECT a\tFROM t WHERE x = 1\n", []Prediction{
			{SQL: "SELECT a\tFROM t WHERE x = 1", Pos: "line 1"}}},
		{"the db_id is after the last tab", "SELECT a\tFROM t\tshop\n", []Prediction{
			{SQL: "SELECT a\tFROM t", DBID: "shop", Pos: "line 1"}}},
		{"an empty SQL with a db_id", "\tshop\n", []Prediction{{SQL: "", DBID: "shop", Pos: "line 1"}}},
		{"trailing tab", "SELECT 1\t\n", []Prediction{{SQL: "SELECT 1", Pos: "line 1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseSpider([]byte(tt.in))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSpider(%q)\n got %+v\nwant %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseBird(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Prediction
		wantErr string
	}{
		{"in order", `{"0": "SELECT 1` + `\t----- bird -----\t` + `shop", "1": "SELECT 2` + `\t----- bird -----\t` + `zoo"}`, []Prediction{
			{SQL: "SELECT 1", DBID: "shop", Pos: `key "0"`}, {SQL: "SELECT 2", DBID: "zoo", Pos: `key "1"`}}, ""},
		{"out of order", `{"1": "B", "0": "A"}`, []Prediction{{SQL: "A", Pos: `key "0"`}, {SQL: "B", Pos: `key "1"`}}, ""},
		{"empty object", `{}`, []Prediction{}, ""},
		{"null value is an empty prediction", `{"0": null}`, []Prediction{{Pos: `key "0"`}}, ""},
		{"gap", `{"0": "A", "2": "C"}`, nil, `no key "1": the keys must be the indexes 0 to 1, each once`},
		{"duplicate", `{"0": "A", "0": "B"}`, nil, `key "0": given twice`},
		{"not an index", `{"zero": "A"}`, nil, `key "zero": want a task index`},
		{"leading zero", `{"00": "A"}`, nil, `key "00": want a task index`},
		{"negative", `{"-1": "A"}`, nil, `key "-1": want a task index`},
		{"number value", `{"0": 5}`, nil, `key "0": want a string`},
		{"array", `["SELECT 1"]`, nil, "want a JSON object of index keys"},
		{"truncated", `{"0": "A"`, nil, "malformed JSON"},
		{"trailing data", `{"0": "A"} {}`, nil, "more after the object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBird([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseBird(%s) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseBird(%s)\n got %+v\nwant %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		path, data, want string
	}{
		{"pred.sql", "SELECT 1\n", FormatSpider},
		{"pred.txt", "", FormatSpider},
		{"predict_dev.json", "", FormatBird},
		{"PRED.JSON", "SELECT 1", FormatBird},
		{"pred", "\n  {\"0\": \"x\"}", FormatBird},
		{"pred", "\xef\xbb\xbf{}", FormatBird},
	}
	for _, tt := range tests {
		if got := DetectFormat(tt.path, []byte(tt.data)); got != tt.want {
			t.Errorf("DetectFormat(%q, %q) = %q, want %q", tt.path, tt.data, got, tt.want)
		}
	}
}

func TestReadPredictions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		path       string
		wantFormat string
		wantN      int
		wantErr    string
	}{
		{write("a.sql", "SELECT 1\nSELECT 2\n"), FormatSpider, 2, ""},
		{write("b.json", `{"0": "SELECT 1"}`), FormatBird, 1, ""},
		{write("c.json", `{"1": "SELECT 1"}`), FormatBird, 0, `c.json: no key "0"`},
		{filepath.Join(dir, "missing.sql"), "", 0, "missing.sql: no such file"},
	}
	for _, tt := range tests {
		preds, format, err := ReadPredictions(tt.path, ReadLimits{})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ReadPredictions(%s) error = %v, want one containing %q", tt.path, err, tt.wantErr)
			}
			continue
		}
		if err != nil || format != tt.wantFormat || len(preds) != tt.wantN {
			t.Errorf("ReadPredictions(%s) = %d predictions, %q, %v; want %d, %q", tt.path, len(preds), format, err, tt.wantN, tt.wantFormat)
		}
	}
}
