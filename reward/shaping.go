package reward

import "time"

// EfficiencyBucket is BIRD's R-VES reward for a correct prediction, from
// the ratio of the gold's run time to the prediction's: >= 2 pays 1.25,
// >= 1 pays 1, >= 0.5 pays 0.75, >= 0.25 pays 0.5, anything slower 0.25
// (evaluation_ves.py of the BIRD mini-dev evaluator). A prediction timed
// at zero counts as twice as fast (1.25); both at zero count as equal (1).
func EfficiencyBucket(goldTime, predTime time.Duration) float64 {
	if predTime <= 0 {
		if goldTime <= 0 {
			return 1
		}
		return 1.25
	}
	return RatioBucket(float64(goldTime) / float64(predTime))
}

// RatioBucket is EfficiencyBucket for a time ratio already measured (gold
// time over predicted time, e.g. averaged over several runs as BIRD does).
func RatioBucket(ratio float64) float64 {
	switch {
	case ratio >= 2:
		return 1.25
	case ratio >= 1:
		return 1
	case ratio >= 0.5:
		return 0.75
	case ratio >= 0.25:
		return 0.5
	}
	return 0.25
}

// TableJaccard is |pred ∩ gold| / |pred ∪ gold| over the two sets of
// table names the queries read, as ColumnJaccard is over columns. Two
// empty sets agree fully: 1.
func TableJaccard(pred, gold []string) float64 { return jaccard(pred, gold) }

// ColumnJaccard is |pred ∩ gold| / |pred ∪ gold| over the two sets of
// "table.column" names the queries read, repeats ignored. Two empty sets
// (queries that read no column, such as SELECT 1) agree fully: 1.
func ColumnJaccard(pred, gold []string) float64 { return jaccard(pred, gold) }

// jaccard is |pred ∩ gold| / |pred ∪ gold| over two sets of names,
// repeats ignored; 1 when both are empty.
func jaccard(pred, gold []string) float64 {
	g := make(map[string]bool, len(gold))
	for _, c := range gold {
		g[c] = true
	}
	p := make(map[string]bool, len(pred))
	inter := 0
	for _, c := range pred {
		if p[c] {
			continue
		}
		p[c] = true
		if g[c] {
			inter++
		}
	}
	union := len(g) + len(p) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}
