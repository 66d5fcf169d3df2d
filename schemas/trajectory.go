package schemas

import (
	"encoding/json"
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
	Tools       []string     `json:"tools,omitempty"`
	MaxTurns    int          `json:"max_turns"`
	Messages    []Message    `json:"messages"`
	StartedAt   time.Time    `json:"started_at"`
	EndedAt     *time.Time   `json:"ended_at,omitempty"`
	Outcome     string       `json:"outcome,omitempty"`
	FinalReward float64      `json:"final_reward"`
	TotalReward float64      `json:"total_reward"`
	Steps       []StepRecord `json:"steps"`
	// CloseComponents are the final components paid when the episode
	// ended without a step (closed early, or abandoned): no step carries
	// them, so they are kept here.
	CloseComponents map[string]float64 `json:"close_components,omitempty"`
	ServerVersion   string             `json:"server_version"`
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
}

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
