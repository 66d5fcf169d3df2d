package episodes

import (
	"encoding/json"
	"testing"
)

// FuzzIsJSONObject: isJSONObject accepts exactly what decodes into a
// non-nil map of raw messages, as the check it replaced did.
func FuzzIsJSONObject(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `[1]`, `{"a":1}`, " \n{\"a\":1} ", `{"a":1}x`, `"s"`, `{"a":}`,
		`{} {}`, "{\"a\":\"\xff\"}", `{"a":{"b":[1,2,{}]}}`, ``, ` `, `{"a":1,"a":2}`, `1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v map[string]json.RawMessage
		want := json.Unmarshal(raw, &v) == nil && v != nil
		if got := isJSONObject(raw); got != want {
			t.Errorf("isJSONObject(%q) = %v, want %v", raw, got, want)
		}
	})
}

// FuzzJSONDepth: jsonDepth of valid JSON is the nesting depth its decoded
// value has.
func FuzzJSONDepth(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `1`, `"[{"`, `{"a":"\"{"}`, `{"a":[1,{"b":[]}]}`, `[[[["x\\"]]]]`, `{"a":"\\\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		if got, want := jsonDepth(raw), depthOf(v); got != want {
			t.Errorf("jsonDepth(%q) = %d, want %d", raw, got, want)
		}
	})
}

// depthOf is how deep a decoded JSON value nests.
func depthOf(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			d = max(d, depthOf(e))
		}
	case []any:
		for _, e := range v {
			d = max(d, depthOf(e))
		}
	default:
		return 0
	}
	return d + 1
}
