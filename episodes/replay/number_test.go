package replay

import "testing"

func TestNumberHasNoFloatNoise(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{-0.15000000000000002, "-0.15"}, // three format errors of -0.05, summed
		{-0.35000000000000003, "-0.35"},
		{0.30000000000000004, "0.3"},
		{1, "1"},
		{-1e-12, "0"},
		{0.123456789, "0.123456789"},
	} {
		if got := number(c.v); got != c.want {
			t.Errorf("number(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := metaText([]string{"n"}, 1, false); got != `columns ["n"], 1 row, truncated false` {
		t.Errorf("metaText of one row = %q", got)
	}
	if got := componentsText(map[string]float64{"turn.format_error": -0.15000000000000002, "final.no_submit": -0.2}); got != "final.no_submit=-0.2 turn.format_error=-0.15" {
		t.Errorf("componentsText = %q", got)
	}
}
