package repl

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// tasks lists tasks: .tasks [dataset] [n].
func (s *session) tasks(ctx context.Context, args []string) {
	p := schemas.TasksListParams{Limit: 10}
	if n := len(args); n > 0 {
		if v, err := strconv.Atoi(args[n-1]); err == nil {
			p.Limit = v
			args = args[:n-1]
		}
	}
	if len(args) > 1 || p.Limit < 1 {
		s.out.errorf("usage: .tasks [dataset] [n], n >= 1")
		return
	}
	if len(args) == 1 {
		p.Dataset = args[0]
	}
	r, err := s.c.Tasks(ctx, p)
	if err != nil {
		s.callFailed(err)
		return
	}
	rows := make([][]string, len(r.Tasks))
	for i, t := range r.Tasks {
		rows[i] = []string{t.TaskID, t.DBID, t.Difficulty, t.Question}
	}
	s.out.refreshWidth()
	lines := plainTable([]string{"task_id", "db_id", "difficulty", "question"}, rows).render(s.out.width)
	s.out.linef("%s", s.out.paint(styleBold, lines[0]))
	for _, l := range lines[1:] {
		s.out.linef("%s", l)
	}
	s.out.linef("(%d of %s)", len(r.Tasks), plural(r.Total, "task"))
}

// resetArgs are the arguments of .reset.
type resetArgs struct {
	target string // a task id or a dataset name
	seed   *int64
	format string
	tools  []string
}

// parseReset reads .reset [task_id | dataset] [--seed N] [--format F];
// flags may also be written --seed=N.
func parseReset(args []string) (resetArgs, error) {
	var r resetArgs
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		if !strings.HasPrefix(name, "--") {
			if r.target != "" {
				return r, fmt.Errorf("one task id or dataset, got %q and %q", r.target, args[i])
			}
			r.target = args[i]
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return r, fmt.Errorf("%s needs a value", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "--seed":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return r, fmt.Errorf("--seed must be an integer, got %q", value)
			}
			r.seed = &n
		case "--format":
			r.format = value
		case "--tools":
			r.tools = strings.Split(value, ",")
		default:
			return r, fmt.Errorf("unknown flag %s", name)
		}
	}
	return r, nil
}

// resetCmd starts an episode. The episode live before is closed once the
// new one has started, so a mistyped task id costs nothing.
func (s *session) resetCmd(ctx context.Context, args []string) {
	a, err := parseReset(args)
	if err != nil {
		s.out.errorf(".reset: %v", err)
		s.out.errorf("usage: .reset [task_id | dataset] [--seed N] [--format hermes|tags] [--tools NAME,NAME]")
		return
	}
	p := schemas.ResetParams{Seed: a.seed, ActionFormat: a.format, Tools: a.tools}
	if s.isDataset(a.target) {
		p.Dataset = a.target
	} else {
		p.TaskID = a.target
	}
	s.start(ctx, p)
}

// The tag every episode the REPL starts carries, so that exports and
// reports can leave out (or keep only) what people played by hand:
// export --exclude-tag origin=repl.
const (
	originTag  = "origin"
	originREPL = "repl"
)

// start resets an episode with p (tagged origin=repl when it has no
// tags) and shows its task.
func (s *session) start(ctx context.Context, p schemas.ResetParams) bool {
	if p.Tags == nil {
		p.Tags, _ = json.Marshal(map[string]string{originTag: originREPL})
	}
	r, err := s.c.Reset(ctx, p)
	if err != nil {
		s.callFailed(err)
		return false
	}
	s.closeEpisode(ctx)
	s.ep = &episode{reset: r}
	t := r.Task
	level := ""
	if t.Difficulty != "" {
		level = ", " + t.Difficulty
	}
	s.out.linef("episode %s: %s (%s%s), %s, %s format", r.EpisodeID, t.TaskID, t.DBID, level,
		plural(r.MaxTurns, "turn"), r.ActionFormat)
	s.out.styledf(styleBold, "%s", t.Question)
	if t.Evidence != "" {
		s.out.linef("evidence: %s", t.Evidence)
	}
	return true
}

func (s *session) isDataset(name string) bool {
	for _, d := range s.info.Datasets {
		if d.Name == name {
			return true
		}
	}
	return false
}

// showPrompt prints the episode's messages and tools, as a chat template
// gets them.
func (s *session) showPrompt() {
	if s.ep == nil {
		s.out.errorf("no episode: .reset starts one")
		return
	}
	r := s.ep.reset
	for _, m := range r.Messages {
		s.out.styledf(styleBold, "── %s ──", m.Role)
		s.out.block("", m.Content)
	}
	s.out.styledf(styleBold, "── tools (%d; text actions in %s format) ──", len(r.Tools), r.ActionFormat)
	for _, t := range r.Tools {
		s.out.styledf(styleBold, "%s", t.Function.Name)
		s.out.block("  ", t.Function.Description)
		s.out.linef("  parameters: %s", compactJSON(t.Function.Parameters))
	}
}
