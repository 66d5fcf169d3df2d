package rollout

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/tools"
)

// Kinds of teacher hint (--teacher-hints), in the order the prompt shows them.
const (
	HintEvidence   = "evidence"    // the task's external knowledge
	HintGoldResult = "gold_result" // the rows the gold query returns
	HintGoldSQL    = "gold_sql"    // the gold query itself, verbatim
)

// HintKinds lists the kinds of teacher hint.
func HintKinds() []string { return []string{HintEvidence, HintGoldResult, HintGoldSQL} }

// Hints are a teacher's privileged hints, by kind. They are added to the
// system prompt the teacher sees and recorded in the episode's tags
// (teacher_hints), never in its prompt.
type Hints map[string]string

// hintHeader opens the hints in the teacher's system prompt.
const hintHeader = "Privileged hints (for you alone; verify your answer with the tools before you submit it):"

// Prompt is the hints as the system prompt shows them; "" for none.
func (h Hints) Prompt() string {
	if len(h) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(hintHeader)
	labels := map[string]string{HintEvidence: "External knowledge", HintGoldResult: "The expected result",
		HintGoldSQL: "A correct query"}
	for _, k := range HintKinds() {
		if v, ok := h[k]; ok {
			fmt.Fprintf(&b, "\n\n%s:\n%s", labels[k], v)
		}
	}
	return b.String()
}

// ParseHintKinds checks a comma-separated list of hint kinds.
func ParseHintKinds(s string) ([]string, error) {
	var out []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if !slices.Contains(HintKinds(), k) {
			return nil, fmt.Errorf("unknown hint kind %q (want %s)", k, strings.Join(HintKinds(), ", "))
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

// Hinter makes a task's hints from its dataset: the evidence and gold SQL
// as written, the gold result by running the gold on the task's database.
type Hinter struct {
	Kinds   []string
	Catalog *env.Catalog
	Runner  *tools.Runner // renders the gold rows, within its row limit and observation bytes
	Timeout time.Duration // bound of the gold's run (30s)
}

// Hints returns the task's hints; a kind the task has nothing for (no
// evidence, no gold SQL) is left out.
func (h *Hinter) Hints(ctx context.Context, ds *env.Dataset, t *env.Task) (Hints, error) {
	out := Hints{}
	for _, k := range h.Kinds {
		switch {
		case k == HintEvidence && strings.TrimSpace(t.Evidence) != "":
			out[k] = strings.TrimSpace(t.Evidence)
		case k == HintGoldSQL && t.GoldSQL != "":
			out[k] = t.GoldSQL
		case k == HintGoldResult:
			rows, err := h.goldResult(ctx, ds, t)
			if err != nil {
				return nil, fmt.Errorf("gold result of %s: %w", t.ID, err)
			}
			out[k] = rows
		}
	}
	return out, nil
}

// goldResult renders the gold's rows as an observation shows rows.
func (h *Hinter) goldResult(ctx context.Context, ds *env.Dataset, t *env.Task) (string, error) {
	rs := &env.ResultSet{Rows: t.GoldRows}
	if len(t.GoldRows) > 0 {
		for i := range t.GoldRows[0] {
			rs.Columns = append(rs.Columns, fmt.Sprintf("column%d", i+1))
		}
	}
	if t.GoldSQL != "" {
		db, err := h.Catalog.DB(ctx, ds, t.DBID)
		if err != nil {
			return "", err
		}
		lim := h.Runner.Limits()
		lim.Timeout = h.Timeout
		if lim.Timeout <= 0 {
			lim.Timeout = 30 * time.Second
		}
		if rs, err = db.Query(ctx, t.GoldSQL, lim); err != nil {
			return "", err
		}
	}
	return h.Runner.RenderRows(rs), nil
}
