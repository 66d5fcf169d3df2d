// Package report computes what a run of episodes says about a model:
// pass@k with the unbiased estimator (Chen et al. 2021), mean accuracy,
// self-consistency accuracy (a majority vote of each task's samples by
// result set), first-shot and after-repair accuracy, and the distribution
// of turns, outcomes, tool calls and tokens, broken down by difficulty
// and by database. It reads recorded trajectories of any origin, and
// writes report.json and terminal tables (docs/rollout.md documents both).
package report

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/sqlgym/sqlgym/schemas"
)

// Report is what report.json holds. Its top-level names are fixed.
type Report struct {
	Run   string `json:"run"`
	Model string `json:"model"`
	Stats
	ByDifficulty map[string]*Stats `json:"by_difficulty"`
	ByDB         map[string]*Stats `json:"by_db"`
}

// Stats are the numbers of a set of episodes: the whole run, or one
// difficulty or database of it.
type Stats struct {
	Tasks    int `json:"tasks"`
	Samples  int `json:"samples"` // K: the most samples any task has
	Episodes int `json:"episodes"`
	// PassAtK holds pass@k for every k from 1 to Samples, keyed by k as
	// a string; pass@k averages over the tasks with at least k samples.
	PassAtK             map[string]float64 `json:"pass_at_k"`
	MeanAccuracy        float64            `json:"mean_accuracy"`
	SCAccuracy          float64            `json:"sc_accuracy"`
	FirstShotAccuracy   float64            `json:"first_shot_accuracy"`
	AfterRepairAccuracy float64            `json:"after_repair_accuracy"`
	Outcomes            map[string]int     `json:"outcomes"`
	Turns               map[string]int     `json:"turns"`      // episodes by the steps they took
	ToolCalls           map[string]int     `json:"tool_calls"` // steps by tool; "none" for a reply with no call
	Tokens              Tokens             `json:"tokens"`
	// SCVote says what the self-consistency vote compared: "result_set"
	// (the submitted queries' rows, run again on the databases) or
	// "sql_text" (the submitted queries, normalized) when the databases
	// were not at hand.
	SCVote string `json:"sc_vote"`
	// Unfinished counts the samples of a sampled run (episodes with a
	// sample tag) none of whose episodes ended by its own steps: they were
	// closed early (Ctrl-C, an endpoint that failed), are left out of every
	// other number, and a resume plays them again.
	Unfinished int `json:"unfinished"`
}

// Tokens counts the model's tokens, where they were recorded.
type Tokens struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	Episodes   int `json:"episodes"` // episodes whose usage is known
}

// Usage is one episode's token usage.
type Usage struct {
	EpisodeID        string `json:"episode_id"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	Requests         int    `json:"requests"`
}

// Voter keys submitted queries by their result: two queries of a task
// get the same key exactly when they return the same rows. ok is false
// when the query did not run.
type Voter interface {
	ResultKey(ctx context.Context, task schemas.TaskView, sql string) (key string, ok bool)
}

// Options say what else a report reads.
type Options struct {
	Voter Voter            // nil: votes compare the normalized SQL text
	Usage map[string]Usage // token usage by episode id; nil: unknown
}

// Build computes the report of the episodes (complete trajectories).
func Build(ctx context.Context, eps []*schemas.Trajectory, o Options) *Report {
	kept, order, unfinished := selectEpisodes(eps)
	facts := make([]*fact, len(kept))
	for i, t := range kept {
		facts[i] = newFact(ctx, t, order[i], o)
	}
	vote := voteKind(o)
	r := &Report{Run: commonTag(kept, "run"), Model: commonTag(kept, "model"), Stats: *compute(facts),
		ByDifficulty: breakdown(facts, unfinished, vote, func(t *schemas.Trajectory) string { return orNone(t.Task.Difficulty) }),
		ByDB:         breakdown(facts, unfinished, vote, func(t *schemas.Trajectory) string { return t.Task.Dataset + "/" + t.Task.DBID })}
	r.Unfinished = len(unfinished)
	r.SCVote = vote
	return r
}

func voteKind(o Options) string {
	if o.Voter != nil {
		return "result_set"
	}
	return "sql_text"
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// breakdown computes the stats of each group of facts, each counting
// its unfinished samples and saying what its votes compared, as the
// whole report does.
func breakdown(facts []*fact, unfinished []*schemas.Trajectory, vote string, by func(*schemas.Trajectory) string) map[string]*Stats {
	groups := map[string][]*fact{}
	for _, f := range facts {
		groups[by(f.t)] = append(groups[by(f.t)], f)
	}
	for _, t := range unfinished {
		if _, ok := groups[by(t)]; !ok {
			groups[by(t)] = nil
		}
	}
	out := map[string]*Stats{}
	for k, fs := range groups {
		out[k] = compute(fs)
		out[k].SCVote = vote
	}
	for _, t := range unfinished {
		out[by(t)].Unfinished++
	}
	return out
}

// commonTag is the value of a tag every episode shares, or "" when they
// differ or have none.
func commonTag(eps []*schemas.Trajectory, key string) string {
	val := ""
	for i, t := range eps {
		var tags map[string]json.RawMessage
		_ = json.Unmarshal(t.Tags, &tags)
		v := tagText(tags[key])
		if i > 0 && v != val {
			return ""
		}
		val = v
	}
	return val
}

func tagText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// itoa keys the maps of turns and pass@k.
func itoa(n int) string { return strconv.Itoa(n) }
