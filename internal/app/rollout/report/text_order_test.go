package report

import (
	"slices"
	"strings"
	"testing"
)

// The difficulty rows come in Spider's order, then BIRD's, then others:
// not by name.
func TestDifficultyRowsInLevelOrder(t *testing.T) {
	levels := []string{"extra", "challenging", "medium", "(none)", "simple", "hard", "easy", "moderate"}
	r := &Report{ByDifficulty: map[string]*Stats{}, ByDB: map[string]*Stats{}}
	for _, l := range levels {
		r.ByDifficulty[l] = &Stats{}
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	_, table, _ := strings.Cut(text, "\nby difficulty\n")
	var got []string
	for _, line := range strings.Split(table, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) == 0 || !slices.Contains(levels, f[0]) {
			break
		}
		got = append(got, f[0])
	}
	want := []string{"easy", "medium", "hard", "extra", "simple", "moderate", "challenging", "(none)"}
	if !slices.Equal(got, want) {
		t.Errorf("difficulty rows %v, want %v\n%s", got, want, text)
	}
}
