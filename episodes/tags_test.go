package episodes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
)

// TestAddTags: a surface's tags join the caller's (overriding one of the
// same key), absent and null tags are none yet, and tags that are not an
// object fail as InvalidArgument, saying what was sent.
func TestAddTags(t *testing.T) {
	add := map[string]string{episodes.OriginTag: "mcp", "note": `say "hi"`}
	tests := []struct{ raw, want string }{
		{"", `{"note":"say \"hi\"","origin":"mcp"}`},
		{"null", `{"note":"say \"hi\"","origin":"mcp"}`},
		{`{"run":"r1","origin":"me"}`, `{"note":"say \"hi\"","origin":"mcp","run":"r1"}`},
	}
	for _, tt := range tests {
		got, err := episodes.AddTags([]byte(tt.raw), add)
		if err != nil || string(got) != tt.want {
			t.Errorf("AddTags(%q) = %s, %v; want %s", tt.raw, got, err, tt.want)
		}
	}
	for _, raw := range []string{`[1]`, `"x"`, `{"a":`, `{"k":"` + strings.Repeat("v", 200) + `"]`} {
		_, err := episodes.AddTags([]byte(raw), add)
		if !errors.Is(err, episodes.InvalidArgument) || !strings.Contains(err.Error(), "tags must be a JSON object, got "+raw[:min(len(raw), 80)]) {
			t.Errorf("AddTags(%.40q): %v, want InvalidArgument naming what was sent", raw, err)
		}
	}
}
