package jsonscan

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
)

// The seed corpus of FuzzScanner, in testdata/fuzz/FuzzScanner, holds
// the seeds of the fuzz tests each caller had before they shared this
// scanner: the JSON-RPC frames and params of episodes/jsonrpc, the tool
// arguments of tools' sole-"sql" path and the trajectory lines of
// episodes/trajlog's shape, with the inputs those tests had found.

// FuzzScanner checks the scanner against encoding/json on any input:
// whatever value it reads whole is valid JSON that encoding/json decodes
// to the same tree, and whatever object it reads into known fields
// (Members, Text, TextIn, Integer, RawValue, List) encoding/json's strict
// decoder reads to the same values.
func FuzzScanner(f *testing.F) {
	f.Add([]byte(`{"sql":"SELECT 1","id":[1,{"a":null}],"seed":-3,"flag":true,"tools":["submit"],"usage":{"n":7}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		agreeTree(t, raw)
		agreeProbe(t, raw)
		agreeSole(t, raw)
	})
}

// agreeSole checks SoleString: what it reads, encoding/json reads as an
// object of that one member holding that string.
func agreeSole(t *testing.T, raw []byte) {
	t.Helper()
	got, ok := SoleString(raw, "sql")
	if !ok {
		return
	}
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil || len(want) != 1 || want["sql"] != got {
		t.Fatalf("SoleString read %q as %q; encoding/json reads %#v (%v)", raw, got, want, err)
	}
}

// agreeTree checks the scanner's reading of raw as one value against
// encoding/json's, and Skip against that reading, and reports whether
// the scanner read it.
func agreeTree(t *testing.T, raw []byte) bool {
	t.Helper()
	s := New(raw)
	got, ok := tree(&s, 0)
	ok = ok && s.End()
	skipped := New(raw)
	if skips := skipped.Skip() && skipped.End(); skips != ok {
		t.Fatalf("%q: Skip reads it whole %v, the value's reading %v", raw, skips, ok)
	}
	if !ok {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil || !json.Valid(raw) {
		t.Fatalf("the scanner read %q, which encoding/json refuses (%v)", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the scanner read %q as\n%#v\nencoding/json reads\n%#v", raw, got, want)
	}
	return true
}

// tree reads any value as encoding/json decodes it into an any with
// UseNumber: objects (any key), arrays, strings, numbers, literals; at
// most maxScanDepth objects and arrays open at once (depth are open).
func tree(s *Scanner, depth int) (any, bool) {
	if c := s.Peek(); (c == '{' || c == '[') && depth == maxScanDepth {
		return nil, false
	}
	switch s.Peek() {
	case '{':
		m := map[string]any{}
		ok := s.List('{', '}', func() bool {
			body, _, ok := s.StringBody()
			if !ok || !s.Byte(':') {
				return false
			}
			m[Unquote(body)], ok = tree(s, depth+1)
			return ok
		})
		return m, ok
	case '[':
		a := []any{}
		ok := s.List('[', ']', func() bool {
			v, ok := tree(s, depth+1)
			a = append(a, v)
			return ok
		})
		return a, ok
	case '"':
		return s.Text()
	case 't':
		return true, s.Literal("true")
	case 'f':
		return false, s.Literal("false")
	case 'n':
		return nil, s.Literal("null")
	}
	s.Space()
	start := s.Pos()
	if !s.Number() {
		return nil, false
	}
	return json.Number(s.b[start:s.Pos()]), true
}

// probe is an object of the kinds of fields the callers read.
type probe struct {
	SQL       string          `json:"sql"`
	EpisodeID string          `json:"episode_id"`
	ID        json.RawMessage `json:"id"`
	Seed      *int64          `json:"seed"`
	Flag      *bool           `json:"flag"`
	Tools     []string        `json:"tools"`
	Usage     *usage          `json:"usage"`
}

type usage struct {
	N int64 `json:"n"`
}

var (
	probeFields = []string{"sql", "episode_id", "id", "seed", "flag", "tools", "usage"}
	usageFields = []string{"n"}
	probeWords  = []string{"SELECT 1", "submit"}
)

// agreeProbe checks readProbe against encoding/json's strict decoder,
// and reports whether the scanner read raw.
func agreeProbe(t *testing.T, raw []byte) bool {
	t.Helper()
	got, ok := readProbe(raw)
	if !ok {
		return false
	}
	var want probe
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("the scanner read %q, which the strict decoder refuses: %v", raw, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("the scanner read %q whole, which has data after the object", raw)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the scanner read %q as\n%#v\nencoding/json reads\n%#v", raw, got, want)
	}
	return true
}

// readProbe reads a probe the way the callers read their shapes.
func readProbe(raw []byte) (probe, bool) {
	var p probe
	s := New(raw)
	ok := s.Members(probeFields, func(name string) bool {
		var ok bool
		switch name {
		case "sql":
			p.SQL, ok = s.TextIn(probeWords)
		case "episode_id":
			p.EpisodeID, ok = s.Text()
		case "id":
			p.ID, ok = s.RawValue()
		case "seed":
			p.Seed = new(int64)
			*p.Seed, ok = s.Integer()
		case "flag":
			p.Flag = new(bool)
			*p.Flag = s.Peek() == 't'
			ok = s.Literal("true") || s.Literal("false")
		case "tools":
			p.Tools = []string{}
			ok = s.List('[', ']', func() bool {
				v, ok := s.Text()
				p.Tools = append(p.Tools, v)
				return ok
			})
		case "usage":
			p.Usage = new(usage)
			ok = s.Members(usageFields, func(string) bool {
				var ok bool
				p.Usage.N, ok = s.Integer()
				return ok
			})
		}
		return ok
	})
	return p, ok && s.End()
}

// TestScannerReadsTheCommonShapes: the scanner reads what clients send,
// escapes, odd case and bad UTF-8 included, so that the agreement checks
// do not pass by declining everything; and it leaves to encoding/json
// what it must (a repeated or unknown field, an escaped key, a number
// that is not a small integer where one is read).
func TestScannerReadsTheCommonShapes(t *testing.T) {
	for _, tt := range []struct {
		raw        string
		tree, read bool
	}{
		{`{"sql":"SELECT 1","id":[1,{"a":null}],"seed":-3,"flag":true,"tools":["submit"],"usage":{"n":7}}`, true, true},
		{` { "SQL" : "a\"b\\c\/\u00e9\ud83d\ude00" , "Episode_ID" : "\ud800" } `, true, true},
		{"{\"sql\":\"bad \xff utf-8\",\"id\":-1.5e3}", true, true},
		{`{"sql":"a","sql":"b"}`, true, false}, {`{"other":1}`, true, false}, {`{"\u0073ql":"x"}`, true, false},
		{`{"seed":1.0}`, true, false}, {`{"seed":99999999999999999999}`, true, false}, {`{"seed":null}`, true, false},
		{`[1,-0,0.5e-7,"x",true,false,null,{}]`, true, false}, {`"\u00e9"`, true, false},
		{`{"sql":"x"} x`, false, false}, {`{"sql":"x",}`, false, false}, {"{\"sql\":\"\t\"}", false, false},
		{`{"id":01}`, false, false}, {`{"id":1.}`, false, false}, {`{"id":"\x"}`, false, false}, {`{"id":tru}`, false, false},
	} {
		if got := agreeTree(t, []byte(tt.raw)); got != tt.tree {
			t.Errorf("%s read as a value: %v, want %v", tt.raw, got, tt.tree)
		}
		if got := agreeProbe(t, []byte(tt.raw)); got != tt.read {
			t.Errorf("%s read into fields: %v, want %v", tt.raw, got, tt.read)
		}
	}
}

// TestDeepValuesAreLeftToEncodingJSON: past maxScanDepth objects and
// arrays open at once the scanner declines, and encoding/json's own
// bound decides.
func TestDeepValuesAreLeftToEncodingJSON(t *testing.T) {
	nested := func(n int) []byte {
		return append(bytes.Repeat([]byte(`[{"a":`), n/2), append([]byte("1"), bytes.Repeat([]byte("}]"), n/2)...)...)
	}
	if s := New(nested(maxScanDepth + 2)); s.Skip() {
		t.Errorf("Skip read %d nested values; its bound is %d", maxScanDepth+2, maxScanDepth)
	}
	if s := New(nested(maxScanDepth)); !s.Skip() || !s.End() {
		t.Errorf("Skip refused %d nested values", maxScanDepth)
	}
	if agreeTree(t, nested(maxScanDepth+2)) || !agreeTree(t, nested(maxScanDepth)) {
		t.Error("the value's reading keeps another bound than Skip")
	}
}
