package valueindex

import (
	"fmt"
	"strings"
)

// work is what one search did and left out: the values it scored, the
// stored words its typo pass compared, and what its bounds cut.
type work struct {
	scored, compared int
	wordsCut         bool     // the query had more than maxQueryWords words
	gramsCut         bool     // its words had more than maxQueryGrams trigrams
	typoShort        []string // query words whose typo pass stopped short
	common           []term   // terms scored in part, or not at all
}

// notes are what w cut, a sentence each, as the model is told.
func (w *work) notes() []string {
	var out []string
	if w.wordsCut {
		out = append(out, fmt.Sprintf("only the first %d words of the query were searched", maxQueryWords))
	}
	if w.gramsCut {
		out = append(out, fmt.Sprintf("only the first %d letter triples of the query were used to match near spellings", maxQueryGrams))
	}
	var commonWords []string
	commonGrams := 0
	for _, t := range w.common {
		if t.table == "words" {
			commonWords = append(commonWords, "'"+t.text+"'")
		} else {
			commonGrams++
		}
	}
	if len(commonWords) > 0 {
		out = append(out, fmt.Sprintf("%s %s in too many values to score them all (a search scores at most %d values): some values holding %s were not scored",
			listed(commonWords), plural(len(commonWords), "is", "are"), maxScored, plural(len(commonWords), "it", "them")))
	}
	if commonGrams > 0 {
		out = append(out, fmt.Sprintf("%d common letter %s of the query %s used in part or not at all (a search scores at most %d values)",
			commonGrams, plural(commonGrams, "triple", "triples"), plural(commonGrams, "was", "were"), maxScored))
	}
	if len(w.typoShort) > 0 {
		quoted := make([]string, len(w.typoShort))
		for i, q := range w.typoShort {
			quoted[i] = "'" + q + "'"
		}
		out = append(out, fmt.Sprintf("the search for near spellings compares at most %d stored words per search: stored words close to %s may be missed",
			maxComparisons, listed(quoted)))
	}
	return out
}

// listed joins up to three items, then says how many more there are.
func listed(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:3], ", "), len(items)-3)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
