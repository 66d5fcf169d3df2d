package env

import (
	"cmp"
	"slices"
	"strings"
)

// difficultyLevels are Spider's levels in their order, then BIRD's.
var difficultyLevels = []string{"easy", "medium", "hard", "extra", "simple", "moderate", "challenging"}

// DifficultyRank is a difficulty's place in the order reports list
// them: Spider's easy, medium, hard, extra, then BIRD's simple, moderate,
// challenging (any case), then every other level.
func DifficultyRank(level string) int {
	if i := slices.Index(difficultyLevels, strings.ToLower(level)); i >= 0 {
		return i
	}
	return len(difficultyLevels)
}

// CompareDifficulty orders two difficulties by DifficultyRank, and
// those of one rank by name.
func CompareDifficulty(a, b string) int {
	return cmp.Or(cmp.Compare(DifficultyRank(a), DifficultyRank(b)), strings.Compare(a, b))
}
