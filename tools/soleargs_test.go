package tools

import (
	"reflect"
	"testing"
)

// sameAsGeneral checks that Decode, fast path included, answers as the
// general path does for a call.
func sameAsGeneral(t *testing.T, c Call) {
	t.Helper()
	got, gerr := Decode(c)
	d, ok := lookup(c.Name)
	if !ok {
		t.Fatalf("no tool %q", c.Name)
	}
	want, werr := decodeGeneral(c, d)
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gerr, werr) {
		t.Fatalf("Decode(%s %q) = %#v, %v; the general path gives %#v, %v", c.Name, c.Arguments, got, gerr, want, werr)
	}
}

func TestSoleSQLReadsWhatTheGeneralPathReads(t *testing.T) {
	for _, raw := range []string{
		`{"sql": "SELECT 1"}`, ` { "sql" : "SELECT \"a\" FROM t" } `, `{"sql":"é\u00e9\n\t"}`,
		"{\"sql\": \"bad \xff utf-8\"}", `{"sql": ""}`, `{"sql": " ; "}`, `{"sql": "x", "sql": "y"}`,
		`{"sql": "x"} trailing`, `{"sql": 1}`, `{"SQL": "x"}`, `{"sql": "unterminated}`, "{\"sql\": \"ctl \x01\"}",
		`{"sql": "a\\"}`, `{"sql": "x",}`, `"{\"sql\": \"x\"}"`, `{}`, ``, `null`, `{"sql": "x", "table": "t"}`,
		// the seeds of the fuzz test this fast path had (jsonscan's FuzzScanner now holds them)
		`{"sql":"\ud800"}`, "{\"sql\":\"\xc3\"}", `{ "sql" : "a\\\"b" }`,
	} {
		for _, name := range []string{"execute_sql", "submit", "inspect_schema"} {
			sameAsGeneral(t, Call{Name: name, Arguments: []byte(raw)})
		}
	}
}

func TestSoleSQLTakesTheFastPath(t *testing.T) {
	if s, ok := soleSQL([]byte(` {"sql" :"SELECT 'a'"} `)); !ok || s != "SELECT 'a'" {
		t.Fatalf("soleSQL = %q, %v", s, ok)
	}
	if _, ok := soleSQL([]byte(`{"sql": "x", "limit": 1}`)); ok {
		t.Fatal("soleSQL read an object with two keys")
	}
}
