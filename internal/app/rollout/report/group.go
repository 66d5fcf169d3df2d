package report

import "github.com/sqlgym/sqlgym/schemas"

// group sums the episodes of a set (the whole run, a difficulty, a
// database) as they stream by; its per-task numbers come from the tasks
// when the report is made.
type group struct {
	s                       *Stats
	correct, first, noTable int
}

func newGroup() *group {
	return &group{s: &Stats{PassAtK: map[string]float64{}, PassAtKTasks: map[string]int{}, Outcomes: map[string]int{},
		Turns: map[string]int{}, ToolCalls: map[string]int{}}}
}

// groupOf is the group named k of m, made when missing.
func groupOf(m map[string]*group, k string) *group {
	g := m[k]
	if g == nil {
		g = newGroup()
		m[k] = g
	}
	return g
}

// add counts one episode.
func (g *group) add(f *fact, t *schemas.Trajectory) {
	s := g.s
	s.Episodes++
	if f.correct {
		g.correct++
	}
	if f.firstShot {
		g.first++
	}
	if f.noTable {
		g.noTable++
	}
	s.Outcomes[orNone(t.Outcome)]++
	s.Turns[itoa(len(t.Steps))]++
	for _, st := range t.Steps {
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

// stats are the group's numbers, its tasks given (in a fixed order, so
// that sums come out the same however the episodes were ordered): pass@k
// for each k of ks that half its tasks reach, ks nil meaning the
// candidates its sample counts give.
func (g *group) stats(tasks []*taskAgg, ks []int, vote string) *Stats {
	s := g.s // the episodes' counts; what follows is set afresh, so that Report may be called again
	s.SCVote, s.CorrectNoTableRead = vote, g.noTable
	s.Unfinished, s.Samples, s.MinSamples = 0, 0, 0
	clear(s.PassAtK)
	clear(s.PassAtKTasks)
	var tallies []taskTally
	right := 0
	for _, t := range tasks {
		s.Unfinished += t.unfinished()
		if t.n == 0 {
			continue
		}
		tl := t.tally()
		tallies = append(tallies, tl)
		if tl.scRight {
			right++
		}
		s.Samples = max(s.Samples, t.n)
		if s.MinSamples == 0 || t.n < s.MinSamples {
			s.MinSamples = t.n
		}
	}
	s.Tasks = len(tallies)
	if s.Episodes == 0 {
		return s
	}
	n := float64(s.Episodes)
	s.MeanAccuracy = float64(g.correct) / n
	s.FirstShotAccuracy = float64(g.first) / n
	s.AfterRepairAccuracy = float64(g.correct-g.first) / n
	s.SCAccuracy = float64(right) / float64(s.Tasks)
	if ks == nil {
		ks = candidateKs(s.MinSamples, s.Samples)
	}
	s.passAtK(tallies, ks)
	return s
}
