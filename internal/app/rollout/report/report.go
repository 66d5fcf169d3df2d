// Package report computes what a run of episodes says about a model:
// pass@k with the unbiased estimator (Chen et al. 2021), mean accuracy,
// self-consistency accuracy (a majority vote of each task's samples by
// result set), first-shot and after-repair accuracy, and the distribution
// of turns, outcomes, tool calls and tokens, broken down by difficulty
// and by database, and the correct answers that read no table. It reads
// recorded trajectories of any origin as a stream (Builder), keeping
// per-task aggregates only, and writes report.json and terminal tables
// (docs/rollout.md documents both).
package report

import (
	"context"
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
	// NoTableReadCheck says how a correct answer reading no table was
	// told: CheckTablesRead or CheckSQLText.
	NoTableReadCheck string `json:"no_table_read_check"`
	// ConstantAnswers lists the tasks with correct episodes that read no
	// table (CorrectNoTableRead counts the episodes), by task id.
	ConstantAnswers []ConstantAnswer `json:"correct_no_table_read_tasks"`
	// FailedTasks lists the tasks some of whose episodes were not correct,
	// each told by its last failing episode: the larger share of failed
	// episodes first, then by task id.
	FailedTasks []FailedTask `json:"failed_tasks"`
}

// Stats are the numbers of a set of episodes: the whole run, or one
// difficulty or database of it.
type Stats struct {
	Tasks      int `json:"tasks"`
	Samples    int `json:"samples"`     // K: the most samples any task has
	MinSamples int `json:"min_samples"` // the fewest samples any task has
	Episodes   int `json:"episodes"`
	// PassAtK holds pass@k keyed by k as a string, for k = 1 to
	// EveryKUpTo, the powers of two past it, and the whole run's
	// MinSamples, each up to Samples; pass@k is the mean of the unbiased
	// estimator over the tasks with at least k samples, and a k fewer
	// than half the tasks reach is left out. PassAtKTasks says over how
	// many tasks each k was computed.
	PassAtK             map[string]float64 `json:"pass_at_k"`
	PassAtKTasks        map[string]int     `json:"pass_at_k_tasks"`
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
	// CorrectNoTableRead counts the correct episodes whose submission
	// read no table of the database while the gold did (SELECT 1 when
	// the answer is 1): they count as correct in every other number.
	CorrectNoTableRead int `json:"correct_no_table_read"`
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

// TableReader tells whether a correct submission read no table of its
// task's database while the gold did, as eval judges it. ok is false when
// it cannot tell (the task's dataset is not at hand, the query failed).
type TableReader interface {
	ReadsNoTable(ctx context.Context, t *schemas.Trajectory, sql string) (none, ok bool)
}

// Options say what else a report reads.
type Options struct {
	Voter  Voter            // nil: votes compare the normalized SQL text
	Tables TableReader      // nil: unless the record says, a correct answer reads no table when its SQL has no FROM
	Usage  map[string]Usage // token usage by episode id; nil: unknown
	Golds  GoldCounter      // nil: a failed task's expected rows are not told
}

// Build computes the report of the episodes (complete trajectories, in
// the order the store keeps them): a Builder given each, twice when some
// sample ended more than once.
func Build(ctx context.Context, eps []*schemas.Trajectory, o Options) *Report {
	b := NewBuilder(o)
	for _, t := range eps {
		b.Add(ctx, t)
	}
	if again := b.Again(); again != nil {
		b = again
		for _, t := range eps {
			b.Add(ctx, t)
		}
	}
	return b.Report()
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// itoa and atoi key the maps of turns and pass@k.
func itoa(n int) string { return strconv.Itoa(n) }

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
