package hardness

// Spider's hardness levels, in the evaluator's order.
const (
	Easy   = "easy"
	Medium = "medium"
	Hard   = "hard"
	Extra  = "extra"
)

// Levels lists the levels from easiest to hardest.
var Levels = []string{Easy, Medium, Hard, Extra}

// Spider returns the level Spider's evaluator gives sql, or an error
// naming what its parser could not read (the official evaluator stops
// on such a query; a caller leaves the task's difficulty unknown).
func Spider(sql string) (string, error) {
	q, err := parse(sql)
	if err != nil {
		return "", err
	}
	return level(q.component1(), q.component2(), q.others()), nil
}

// level is Evaluator.eval_hardness's decision on the three counts.
func level(comp1, comp2, others int) string {
	switch {
	case comp1 <= 1 && others == 0 && comp2 == 0:
		return Easy
	case others <= 2 && comp1 <= 1 && comp2 == 0,
		comp1 <= 2 && others < 2 && comp2 == 0:
		return Medium
	case others > 2 && comp1 <= 2 && comp2 == 0,
		2 < comp1 && comp1 <= 3 && others <= 2 && comp2 == 0,
		comp1 <= 1 && others == 0 && comp2 <= 1:
		return Hard
	}
	return Extra
}
