package report

// compute is the stats of a set of episodes.
func compute(facts []*fact) *Stats {
	s := &Stats{Episodes: len(facts), PassAtK: map[string]float64{}, Outcomes: map[string]int{},
		Turns: map[string]int{}, ToolCalls: map[string]int{}}
	tasks := map[string][]*fact{}
	var ids []string
	correct, first := 0, 0
	for _, f := range facts {
		if _, ok := tasks[f.t.Task.TaskID]; !ok {
			ids = append(ids, f.t.Task.TaskID)
		}
		tasks[f.t.Task.TaskID] = append(tasks[f.t.Task.TaskID], f)
		s.count(f)
		if f.correct {
			correct++
		}
		if f.firstShot {
			first++
		}
	}
	s.Tasks = len(ids)
	if s.Episodes == 0 {
		return s
	}
	n := float64(s.Episodes)
	s.MeanAccuracy = float64(correct) / n
	s.FirstShotAccuracy = float64(first) / n
	s.AfterRepairAccuracy = float64(correct-first) / n
	s.passAtK(ids, tasks)
	s.SCAccuracy = scAccuracy(ids, tasks)
	return s
}

// count adds an episode to the distributions.
func (s *Stats) count(f *fact) {
	s.Outcomes[orNone(f.t.Outcome)]++
	s.Turns[itoa(len(f.t.Steps))]++
	for _, st := range f.t.Steps {
		tool := st.Tool
		if tool == "" {
			tool = "none"
		}
		s.ToolCalls[tool]++
	}
	if f.usage != nil {
		s.Tokens.Prompt += f.usage.PromptTokens
		s.Tokens.Completion += f.usage.CompletionTokens
		s.Tokens.Episodes++
	}
}

// passAtK sets pass@k for k from 1 to the most samples of a task, each
// the mean over the tasks with at least k samples.
func (s *Stats) passAtK(ids []string, tasks map[string][]*fact) {
	for _, id := range ids {
		s.Samples = max(s.Samples, len(tasks[id]))
	}
	for k := 1; k <= s.Samples; k++ {
		sum, m := 0.0, 0
		for _, id := range ids {
			fs := tasks[id]
			if len(fs) < k {
				continue
			}
			sum += PassAtK(len(fs), countCorrect(fs), k)
			m++
		}
		s.PassAtK[itoa(k)] = sum / float64(m)
	}
}

func countCorrect(fs []*fact) int {
	c := 0
	for _, f := range fs {
		if f.correct {
			c++
		}
	}
	return c
}

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

// scAccuracy is the share of tasks whose majority vote is correct: the
// samples whose submission ran vote by their key, the largest group wins
// (a tie goes to the group whose first sample came first), and the task
// counts as correct when that group's submissions were. A task no
// submission of which ran counts as wrong.
func scAccuracy(ids []string, tasks map[string][]*fact) float64 {
	right := 0
	for _, id := range ids {
		if w := winner(tasks[id]); w != nil && w.correct {
			right++
		}
	}
	return float64(right) / float64(len(ids))
}

// winner is the first fact of the winning vote group, or nil.
func winner(fs []*fact) *fact {
	votes := map[string]int{}
	firstOf := map[string]*fact{}
	for _, f := range fs {
		if f.vote == "" {
			continue
		}
		votes[f.vote]++
		if g := firstOf[f.vote]; g == nil || f.order < g.order {
			firstOf[f.vote] = f
		}
	}
	var best *fact
	for k, f := range firstOf {
		if best == nil || votes[k] > votes[best.vote] || votes[k] == votes[best.vote] && f.order < best.order {
			best = f
		}
	}
	return best
}
