package trajlog

import (
	"encoding/json"
	"testing"
)

// TestTagTextRule states the one rule for a tag's value as text, which the
// filters (--tag, --exclude-tag), the run report and report --by all use.
func TestTagTextRule(t *testing.T) {
	raw := json.RawMessage(`{"run":"grpo-3","quoted":"a \"b\" \/ \u00e9",` +
		`"empty":"","n":7,"f":7.0,"t":true,"s7":"7","null":null,"obj":{"a":1},"arr":[1,"x"]}`)
	for key, want := range map[string]string{
		"run":     "grpo-3",    // a string unquoted
		"quoted":  `a "b" / é`, // with JSON's escapes decoded
		"empty":   "",          // the empty string
		"n":       "7",         // a number as its JSON
		"f":       "7.0",       // as recorded, not normalized
		"s7":      "7",         // the string "7" reads as the number 7
		"t":       "true",      // a boolean as its JSON
		"null":    "null",      // null as its JSON
		"obj":     `{"a":1}`,   // an object as recorded
		"arr":     `[1,"x"]`,   // an array as recorded
		"missing": "",          // no such tag
	} {
		if got := TagValue(raw, key); got != want {
			t.Errorf("tag %s: %q, want %q", key, got, want)
		}
	}
	for _, bad := range []string{``, `null`, `[1]`, `"run"`, `{bad`} {
		if got := TagValue(json.RawMessage(bad), "run"); got != "" {
			t.Errorf("tags %q: run is %q, want \"\" (no tags)", bad, got)
		}
	}
}
