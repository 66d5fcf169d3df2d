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
