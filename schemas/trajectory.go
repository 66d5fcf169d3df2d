package schemas

import (
	"encoding/json"
	"strconv"
	"time"
)

// Trajectory is the record of one episode, as episode.get returns it and
// as the trajectory log stores it.
type Trajectory struct {
	EpisodeID      string          `json:"episode_id"`
	Task           TaskView        `json:"task"`
	Tags           json.RawMessage `json:"tags,omitempty"`
	RewardSpec     RewardSpec      `json:"reward_spec"`
	RewardSpecHash string          `json:"reward_spec_hash"`
	ActionFormat   string          `json:"action_format"`
	// Tools names the tools the episode offered when they were not
	// protocol v1's default three; absent means those.
	Tools    []string `json:"tools,omitempty"`
	MaxTurns int      `json:"max_turns"`
	// PromptStyle is the style the episode's prompt was written in
	// (PromptStyleNative); absent means text, as before styles.
	PromptStyle string `json:"prompt_style,omitempty"`
	// MaxCallsPerTurn is how many calls of one turn ran (the server's
	// --max-calls-per-turn); absent on records made before it was kept.
	MaxCallsPerTurn int          `json:"max_calls_per_turn,omitempty"`
	Messages        []Message    `json:"messages"`
	StartedAt       time.Time    `json:"started_at"`
	EndedAt         *time.Time   `json:"ended_at,omitempty"`
	Outcome         string       `json:"outcome,omitempty"`
	FinalReward     float64      `json:"final_reward"`
	TotalReward     float64      `json:"total_reward"`
	Steps           []StepRecord `json:"steps"`
	// CloseComponents are the final components paid when the episode
	// ended without a step (closed early, or abandoned): no step carries
	// them, so they are kept here.
	CloseComponents map[string]float64 `json:"close_components,omitempty"`
	ServerVersion   string             `json:"server_version"`
}

// TrajectoryEnd is what the end of an episode sets on its trajectory:
// the fields that are set or change once it has begun, under the
// Trajectory's JSON names. A done line of the trajectory log carries it
// as its traj; the rest of the record is the begin line's.
type TrajectoryEnd struct {
	EndedAt         *time.Time         `json:"ended_at,omitempty"`
	Outcome         string             `json:"outcome,omitempty"`
	FinalReward     float64            `json:"final_reward"`
	TotalReward     float64            `json:"total_reward"`
	CloseComponents map[string]float64 `json:"close_components,omitempty"`
}

// StepRecord is one step of a trajectory.
type StepRecord struct {
	Turn             int                `json:"turn"`
	Action           Action             `json:"action"`
	Tool             string             `json:"tool"`
	Arguments        json.RawMessage    `json:"arguments,omitempty"`
	Usage            *Usage             `json:"usage,omitempty"` // as the client reported it; absent when it did not
	Observation      string             `json:"observation"`
	Error            *ToolError         `json:"error,omitempty"`
	ResultMeta       *ResultMeta        `json:"result_meta,omitempty"`
	Reward           float64            `json:"reward"`
	RewardComponents map[string]float64 `json:"reward_components"`
	Outcome          string             `json:"outcome,omitempty"`
	ElapsedMS        float64            `json:"elapsed_ms"`
	At               time.Time          `json:"at"`
	// Content is the text of the turn beside its calls: a message's
	// content, or the text outside a text action's call blocks. Absent
	// when there was none.
	Content *string `json:"content,omitempty"`
	// Calls are every call of a turn that held more than one, or that
	// came as a Message: each with its id and what it got. Absent on a
	// turn of one call in a v1 shape, which Tool, Arguments and
	// Observation describe. CallList gives either as a list.
	Calls []CallRecord `json:"calls,omitempty"`
	// FinishReason is why the model's completion ended, as the client
	// reported it with the step.
	FinishReason string `json:"finish_reason,omitempty"`
	// Judge says how the step's submission was judged; absent on other
	// steps, and on records made before suites.
	Judge *JudgeInfo `json:"judge,omitempty"`
}

// CallList is the step's calls as a list: Calls when the turn recorded
// them, else the one call Tool, Arguments and Observation describe (with
// id call_<turn>_0), else nothing (a turn with no call).
func (s StepRecord) CallList() []CallRecord {
	if len(s.Calls) > 0 {
		return s.Calls
	}
	if s.Tool == "" {
		return nil
	}
	return []CallRecord{{ID: CallID(s.Turn, 0), Tool: s.Tool, Arguments: s.Arguments,
		Observation: s.Observation, Error: s.Error, ResultMeta: s.ResultMeta,
		RewardComponents: s.RewardComponents, ElapsedMS: s.ElapsedMS}}
}

// CallID is the id the server gives call i (from 0) of turn turn when
// the model gave none: call_<turn>_<i>.
func CallID(turn, i int) string { return "call_" + strconv.Itoa(turn) + "_" + strconv.Itoa(i) }

// ResultMeta describes a step's result without its rows.
type ResultMeta struct {
	Columns   []string `json:"columns"`
	RowCount  int      `json:"row_count"`
	Truncated bool     `json:"truncated"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

// Milliseconds is d in milliseconds, to the microsecond, as every
// *_ms field of the wire and the records has it.
func Milliseconds(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
