package mysql

import "testing"

// TestTieKey: text ties as MySQL's default collations order it; other
// values are their own keys.
func TestTieKey(t *testing.T) {
	d := &db{}
	tests := []struct {
		a, b any
		tie  bool
	}{
		{"Zoë", "zoe", true},
		{"zoe  ", "ZOE", true},
		{"Åsa", "asa", true},
		{"zoe", "zoey", false},
		{" zoe", "zoe", false}, // leading spaces count
		{int64(1), int64(1), true},
		{int64(1), "1", false},
		{nil, nil, true},
	}
	for _, tt := range tests {
		if got := d.TieKey(tt.a) == d.TieKey(tt.b); got != tt.tie {
			t.Errorf("TieKey(%q) == TieKey(%q): %v, want %v", tt.a, tt.b, got, tt.tie)
		}
	}
}
