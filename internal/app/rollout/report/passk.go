package report

import "slices"

// EveryKUpTo is the largest k pass@k is reported for at every step:
// past it, only at the powers of two (16, 32, 64, ...), so the line
// stays short whatever the samples per task.
const EveryKUpTo = 8

// PassAtK is the unbiased estimator of pass@k from n samples of which c
// are correct (Chen et al. 2021): 1 - C(n-c, k) / C(n, k), computed as a
// product so that it neither overflows nor loses precision.
func PassAtK(n, c, k int) float64 {
	if n-c < k {
		return 1
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}

// candidateKs are the k pass@k may be reported for when tasks have from
// fewest to most samples: every k from 1 to EveryKUpTo, the powers of two
// past it, and fewest, the largest k every task reaches. At most
// EveryKUpTo + 60 of them.
func candidateKs(fewest, most int) []int {
	var ks []int
	for k := 1; k <= most; {
		ks = append(ks, k)
		if k < EveryKUpTo {
			k++
		} else {
			k *= 2
		}
	}
	if fewest > 0 && !slices.Contains(ks, fewest) {
		ks = append(ks, fewest)
		slices.Sort(ks)
	}
	return ks
}

// taskTally is what pass@k and the vote need of a task: its samples n,
// c of them correct, and whether its majority vote was.
type taskTally struct {
	n, c    int
	scRight bool
}

// passAtK sets pass@k for each k of ks that at least half the tasks
// reach, as the mean over the tasks with at least k samples, and the
// number of those tasks. A k fewer tasks reach is left out: its mean
// would speak for a few tasks only.
func (s *Stats) passAtK(tasks []taskTally, ks []int) {
	for _, k := range ks {
		sum, m := 0.0, 0
		for _, t := range tasks {
			if t.n >= k {
				sum += PassAtK(t.n, t.c, k)
				m++
			}
		}
		if m == 0 || 2*m < len(tasks) {
			continue
		}
		s.PassAtK[itoa(k)] = sum / float64(m)
		s.PassAtKTasks[itoa(k)] = m
	}
}

// shownKs are the k of a pass@k map, in order.
func shownKs(m map[string]float64) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, atoi(k))
	}
	slices.Sort(ks)
	return ks
}
