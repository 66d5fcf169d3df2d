package ajv_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/ajv"
)

// TestStrict: the kit's Ajv refuses what its strict options refuse (a
// required member a oneOf branch does not define, an unknown keyword, an
// unknown format), compiles a sound schema, and reports a document's
// errors and a valid one's none.
func TestStrict(t *testing.T) {
	schemas := map[string][]byte{
		"required": []byte(`{"type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"required":["a"]}]}`),
		"keyword":  []byte(`{"type":"object","propertees":{}}`),
		"format":   []byte(`{"type":"string","format":"no-such-format"}`),
		"sound": []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
			`"properties":{"at":{"type":"string","format":"date-time"}},"required":["at"],` +
			`"oneOf":[{"properties":{"at":true},"required":["at"]}]}`),
	}
	r := ajv.Run(t, schemas, []ajv.Doc{
		{Schema: "sound", JSON: json.RawMessage(`{"at":"2026-03-01T12:00:00Z"}`)},
		{Schema: "sound", JSON: json.RawMessage(`{"at":"yesterday"}`)},
		{Schema: "required", JSON: json.RawMessage(`{"a":"x"}`)},
	})
	for name, want := range map[string]string{"required": "strictRequired", "keyword": "unknown keyword", "format": "unknown format"} {
		if !strings.Contains(r.Compiled[name], want) {
			t.Errorf("schema %s compiled with %q, want an error saying %q", name, r.Compiled[name], want)
		}
	}
	if r.Compiled["sound"] != "" {
		t.Errorf("a sound schema did not compile: %s", r.Compiled["sound"])
	}
	if len(r.Docs[0]) != 0 || len(r.Docs[1]) == 0 || !strings.Contains(strings.Join(r.Docs[1], " "), "date-time") {
		t.Errorf("verdicts %q, want the first valid and the second failing its date-time format", r.Docs)
	}
	if len(r.Docs[2]) == 0 {
		t.Errorf("a document of a schema that did not compile passed")
	}
}
