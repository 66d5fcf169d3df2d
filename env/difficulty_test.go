package env

import (
	"slices"
	"testing"
)

// Spider's levels come in Spider's order, then BIRD's in BIRD's, then
// the others by name.
func TestCompareDifficulty(t *testing.T) {
	got := []string{"zeta", "extra", "challenging", "medium", "(none)", "simple", "hard", "moderate", "easy"}
	slices.SortFunc(got, CompareDifficulty)
	want := []string{"easy", "medium", "hard", "extra", "simple", "moderate", "challenging", "(none)", "zeta"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %v, want %v", got, want)
	}
}
