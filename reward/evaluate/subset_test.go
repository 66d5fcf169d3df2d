package evaluate

import (
	"testing"

	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestSettleMatch: a mode given or named by the spec file stays; else a
// spider or bird dataset takes its benchmark's; a jsonl one keeps the
// spec's.
func TestSettleMatch(t *testing.T) {
	for _, tt := range []struct {
		name             string
		format           string
		given, specNames bool
		want             MatchFrom
		match            string
	}{
		{"given", datasets.FormatSpider, true, false, MatchGiven, schemas.MatchTolerant},
		{"given over the spec file", datasets.FormatBird, true, true, MatchGiven, schemas.MatchTolerant},
		{"the spec file's", datasets.FormatSpider, false, true, MatchSpecFile, schemas.MatchTolerant},
		{"spider", datasets.FormatSpider, false, false, MatchBenchmark, schemas.MatchSpider},
		{"bird", datasets.FormatBird, false, false, MatchBenchmark, schemas.MatchBird},
		{"jsonl", datasets.FormatJSONL, false, false, MatchSpec, schemas.MatchTolerant},
	} {
		spec := schemas.RewardSpec{Match: schemas.MatchTolerant}
		if got := SettleMatch(&spec, tt.format, tt.given, tt.specNames); got != tt.want || spec.Match != tt.match {
			t.Errorf("%s: %v with match %q, want %v with %q", tt.name, got, spec.Match, tt.want, tt.match)
		}
	}
}
