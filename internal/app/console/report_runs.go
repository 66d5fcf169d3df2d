package console

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// maxRunsNamed bounds the runs a blended report names; the episodes of
// runs past it are counted together.
const maxRunsNamed = 50

// runSet counts the episodes of a report without a run by their run tag,
// so that the page names every run it blends. A nil runSet counts
// nothing.
type runSet struct {
	counts   map[string]int
	Untagged int // episodes with no run tag
	Others   int // episodes of runs past the first maxRunsNamed
}

// runCount is one run a blended report holds.
type runCount struct {
	Name     string
	Episodes int
	Link     string // its own report's query
}

func newRunSet() *runSet { return &runSet{counts: map[string]int{}} }

// add counts one episode of these tags.
func (s *runSet) add(tags json.RawMessage) {
	if s == nil {
		return
	}
	run, ok := trajlog.ParseTags(tags)[rollout.TagRun]
	name := trajlog.TagText(run)
	switch _, seen := s.counts[name]; {
	case !ok || name == "":
		s.Untagged++
	case seen || len(s.counts) < maxRunsNamed:
		s.counts[name]++
	default:
		s.Others++
	}
}

// Runs are the runs counted, by name.
func (s *runSet) Runs() []runCount {
	var out []runCount
	for _, name := range slices.Sorted(maps.Keys(s.counts)) {
		out = append(out, runCount{Name: name, Episodes: s.counts[name], Link: "?" + url.Values{"run": {name}}.Encode()})
	}
	return out
}

// flipList is the tasks of one flip, as the CLI lists them: the first
// report.FailedListed, and how many more.
type flipList struct {
	Label string // "wrong → right", say
	ID    string // the list's element id
	Tasks []flippedTask
	More  int
}

// flippedTask is a task that flipped, linking (in the console) to its
// episodes in the run it flipped to.
type flippedTask struct{ ID, Link string }

// flipLists are the comparison's flipped tasks, both ways; with links,
// each names the episodes of the task in run B.
func flipLists(c *report.Comparison, links bool) []flipList {
	var out []flipList
	for _, f := range []struct {
		label, id string
		tasks     []string
	}{{"wrong → right", "flips-wrong-right", c.Flips.WrongToRightTasks}, {"right → wrong", "flips-right-wrong", c.Flips.RightToWrongTasks}} {
		shown, more := report.FlippedShown(f.tasks)
		l := flipList{Label: f.label, ID: f.id, More: more}
		for _, id := range shown {
			t := flippedTask{ID: id}
			if links {
				t.Link = Prefix + "/episodes?" + url.Values{"task": {id}, "tag": {rollout.TagRun + "=" + c.B.Run}}.Encode()
			}
			l.Tasks = append(l.Tasks, t)
		}
		out = append(out, l)
	}
	return out
}
