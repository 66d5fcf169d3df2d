package trajlog

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseDurability(t *testing.T) {
	tests := []struct {
		in      string
		want    Durability
		wantErr bool
	}{
		{"episode", DurabilityEpisode, false},
		{"interval", DurabilityInterval, false},
		{"none", DurabilityNone, false},
		{"", 0, true},
		{"Episode", 0, true},
		{"fsync", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDurability(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseDurability(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
		if err != nil && !strings.Contains(err.Error(), "episode, interval or none") {
			t.Errorf("ParseDurability(%q) error %q does not name the modes", tt.in, err)
		}
	}
	var d Durability
	if err := json.Unmarshal([]byte(`"none"`), &d); err != nil || d != DurabilityNone {
		t.Errorf("unmarshal \"none\" = %v, %v", d, err)
	}
	if b, _ := json.Marshal(DurabilityInterval); string(b) != `"interval"` {
		t.Errorf("marshal interval = %s", b)
	}
}
