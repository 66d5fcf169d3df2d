package schemas

import "encoding/json"

// Method names of protocol sqlgym/1.
const (
	MethodServerInfo = "server.info"
	MethodTasksList  = "tasks.list"
	MethodReset      = "episode.reset"
	MethodStep       = "episode.step"
	MethodClose      = "episode.close"
	MethodEpisodeGet = "episode.get"
)

// ServerInfo is the result of server.info.
type ServerInfo struct {
	Name     string        `json:"name"`
	Version  string        `json:"version"`
	Protocol string        `json:"protocol"`
	Datasets []DatasetInfo `json:"datasets"`
	Tools    []Tool        `json:"tools"`
	Reward   RewardSpec    `json:"reward"`
	Limits   Limits        `json:"limits"`
	Stats    Stats         `json:"stats"`
	// PromptStyle is the prompt style of an episode.reset that names
	// none, on a dataset that sets none (DatasetInfo.PromptStyle).
	PromptStyle string `json:"prompt_style,omitempty" jsonschema_description:"The server's default prompt style (--prompt-style): text or native."`
}

// DatasetInfo names one served dataset.
type DatasetInfo struct {
	Name    string `json:"name"`
	Tasks   int    `json:"tasks"`
	Dialect string `json:"dialect"`
	// PromptStyle is the dataset's own default prompt style
	// (--dataset-prompt-style), when it has one.
	PromptStyle string `json:"prompt_style,omitempty" jsonschema_description:"The dataset's default prompt style (--dataset-prompt-style), when it sets one; absent means the server's."`
}

// Limits are the server's configured bounds, as server.info reports them.
type Limits struct {
	MaxTurns         int     `json:"max_turns"`
	MaxEpisodes      int     `json:"max_episodes"`
	IdleTimeoutS     float64 `json:"idle_timeout_s"`
	QueryTimeoutMS   float64 `json:"query_timeout_ms"`
	GoldTimeoutMS    float64 `json:"gold_timeout_ms"`
	RowLimit         int     `json:"row_limit"`
	ObservationBytes int     `json:"observation_bytes"`
	MaxFrameBytes    int64   `json:"max_frame_bytes"`
	MaxBatch         int     `json:"max_batch" jsonschema_description:"Requests in one JSON-RPC batch."`
	MaxReplyBytes    int64   `json:"max_reply_bytes" jsonschema_description:"Bytes of one reply frame or HTTP reply body."`
	MaxTagsBytes     int     `json:"max_tags_bytes" jsonschema_description:"Bytes of an episode.reset's tags."`
	MaxConnBytes     int64   `json:"max_conn_bytes" jsonschema_description:"Bytes one socket's running requests and unwritten replies may hold before the server stops reading it."`
	MaxConnections   int     `json:"max_connections" jsonschema_description:"Open WebSockets and HTTP RPC requests at once."`
	MaxCallsPerTurn  int     `json:"max_calls_per_turn" jsonschema_description:"Calls one step runs; the calls past it are answered as not run."`
}

// Stats are live counters, as server.info reports them.
type Stats struct {
	LiveEpisodes   int              `json:"live_episodes"`
	Started        int64            `json:"episodes_started"`
	Ended          map[string]int64 `json:"episodes_ended"`
	RecordsWritten int64            `json:"records_written"`
	WriteErrors    int64            `json:"write_errors"`
	BytesWritten   int64            `json:"bytes_written"` // bytes the trajectory store wrote, when it counts them
}

// TasksListParams are the params of tasks.list.
type TasksListParams struct {
	Dataset string `json:"dataset,omitempty" jsonschema_description:"Only this dataset's tasks; without it, every dataset's, in dataset-name order."`
	Offset  int    `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"Tasks to skip."`
	Limit   int    `json:"limit,omitempty" jsonschema:"minimum=0,maximum=10000" jsonschema_description:"Tasks on the page, at most 10000; 0 or left out means 100."`
}

// TasksListResult is the result of tasks.list.
type TasksListResult struct {
	Tasks []TaskSummary `json:"tasks"`
	Total int           `json:"total"`
}

// TaskSummary is one task as tasks.list shows it (never its gold).
type TaskSummary struct {
	TaskID     string `json:"task_id"`
	Dataset    string `json:"dataset"`
	DBID       string `json:"db_id"`
	Question   string `json:"question"`
	Evidence   string `json:"evidence,omitempty"`
	Difficulty string `json:"difficulty,omitempty"`
}

// TaskView is the task as an episode shows it to the client.
type TaskView struct {
	TaskID     string `json:"task_id"`
	Dataset    string `json:"dataset"`
	DBID       string `json:"db_id"`
	Question   string `json:"question"`
	Evidence   string `json:"evidence,omitempty"`
	Difficulty string `json:"difficulty,omitempty"`
	Dialect    string `json:"dialect"`
}

// ResetParams are the params of episode.reset.
type ResetParams struct {
	TaskID       string          `json:"task_id,omitempty" jsonschema_description:"The task to play, as tasks.list names it; without it, a task is drawn from dataset by seed."`
	Dataset      string          `json:"dataset,omitempty" jsonschema_description:"The dataset to draw from (default: the server's first); with task_id, it must be the task's."`
	Seed         *int64          `json:"seed,omitempty" jsonschema_description:"Draws the task deterministically: the same seed gives the same task. Without it, at random."`
	MaxTurns     *int            `json:"max_turns,omitempty" jsonschema:"minimum=1" jsonschema_description:"The turn budget, from 1 to the server's limit (64 by default); left out means the server's default; 0 is refused."`
	ActionFormat string          `json:"action_format,omitempty" jsonschema_description:"How text actions are parsed; left out means hermes."`
	Reward       json.RawMessage `json:"reward,omitempty" jsonschema_description:"How this episode is paid: a partial reward spec merged over the server's, or a reward preset's name."`
	Tags         json.RawMessage `json:"tags,omitempty" jsonschema_description:"Stored verbatim with the trajectory (policy version, group id, sample index, ...)."`
	Tools        []string        `json:"tools,omitempty" jsonschema_description:"The tools this episode offers, by name: a subset of the dataset's (server.info lists them); submit is always added. Left out means the dataset's tools."`
	Descriptions *bool           `json:"descriptions,omitempty" jsonschema_description:"Puts the column descriptions the dataset ships (BIRD's database_description, tables.json's human names, a JSONL dataset's descriptions file) in the prompt, after the question and its evidence; left out means the server's --prompt-descriptions (off by default)."`
	PromptStyle  string          `json:"prompt_style,omitempty" jsonschema:"enum=text,enum=native" jsonschema_description:"How the system prompt is written: text lists the tools and how to call them in the action format; native states the task and the rules only, leaving the tools and their call syntax to the chat template's tools=. Left out means the dataset's default, else the server's --prompt-style (text by default)."`
}

// ResetResult is the result of episode.reset.
type ResetResult struct {
	EpisodeID    string    `json:"episode_id"`
	Task         TaskView  `json:"task"`
	Messages     []Message `json:"messages"`
	Tools        []Tool    `json:"tools"`
	MaxTurns     int       `json:"max_turns"`
	ActionFormat string    `json:"action_format"`
}

// StepParams are the params of episode.step.
type StepParams struct {
	EpisodeID string `json:"episode_id" jsonschema:"minLength=1" jsonschema_description:"The episode, as episode.reset returned it."`
	Action    Action `json:"action" jsonschema_description:"What the model did: a tool call the client parsed, or the model's whole completion."`
	Usage     *Usage `json:"usage,omitempty" jsonschema_description:"What the model's completion for this step cost, as the client's inference server reported it; recorded with the step and paid by the reward's length term."`
	// FinishReason is why the model's completion ended, as the chat
	// endpoint said (stop, tool_calls, length, ...); recorded with the
	// step.
	FinishReason string `json:"finish_reason,omitempty" jsonschema:"maxLength=64" jsonschema_description:"Why the model's completion ended, as the inference server said (stop, tool_calls, length, ...); recorded with the step."`
	// Turn is the number this step will have (its reply's info.turn), 0
	// when the client does not say. A step whose turn the episode has
	// already recorded runs nothing: its reply is the recorded one
	// (StepInfo.Replayed), so a client may send a step again after a
	// lost reply (docs/protocol.md, "Replicas").
	Turn int `json:"turn,omitempty" jsonschema:"minimum=1" jsonschema_description:"The number this step will have (its reply's info.turn). A step whose turn is already recorded runs nothing and gets the recorded reply (info.replayed); a turn past the next one is refused. Send it to make a step safe to send again."`
}

// MaxFinishReasonBytes bounds StepParams.FinishReason.
const MaxFinishReasonBytes = 64

// Usage is the client-reported cost of the completion behind a step.
type Usage struct {
	CompletionTokens int `json:"completion_tokens" jsonschema:"minimum=0,maximum=16777216" jsonschema_description:"Tokens the model generated for this step, at most MaxCompletionTokens (2^24)."`
	PromptTokens     int `json:"prompt_tokens,omitempty" jsonschema:"minimum=0,maximum=16777216" jsonschema_description:"Tokens of the prompt the completion was generated from, at most MaxCompletionTokens (2^24); recorded only."`
}

// MaxCompletionTokens bounds Usage.CompletionTokens: far past any real
// completion, and small enough that an episode's sum cannot overflow.
const MaxCompletionTokens = 1 << 24

// Action is what the model did, in one of three shapes, exactly one per
// action: a parsed tool call (Tool and Arguments), its whole completion
// (Text), or the assistant message as the chat endpoint returned it
// (Message), whose calls all run, in order.
type Action struct {
	Tool      string            `json:"tool,omitempty" jsonschema_description:"The tool called (inspect_schema, execute_sql, submit, or another the episode offers), for a call the client parsed."`
	Arguments json.RawMessage   `json:"arguments,omitempty" jsonschema_description:"The tool's arguments; left out means none."`
	Text      *string           `json:"text,omitempty" jsonschema_description:"The model's whole completion, parsed with the episode's action_format."`
	Message   *AssistantMessage `json:"message,omitempty" jsonschema_description:"The model's reply as an assistant message (OpenAI chat shape): its text, reasoning and tool calls; every call runs, in order."`
}

// StepResult is the result of episode.step.
type StepResult struct {
	Observation Observation `json:"observation"`
	// Observations answers each call of the turn, in call order, one
	// tool message per call; present when the action was a Message, or
	// a hermes text that held a call. Observation then holds their
	// contents too, one after the other (docs/protocol.md).
	Observations []ToolMessage `json:"observations,omitempty" jsonschema_description:"One tool message per call of the turn, in call order; present when the action was a message, or a hermes text holding a call."`
	Reward       float64       `json:"reward" jsonschema_description:"The step's reward: the sum of info.reward_components."`
	Terminated   bool          `json:"terminated" jsonschema_description:"True after a submit: the episode has ended."`
	Truncated    bool          `json:"truncated" jsonschema_description:"True when the turns ran out without a submit: the episode has ended."`
	Info         StepInfo      `json:"info"`
}

// Observation is the tool message the model sees next.
type Observation struct {
	Role    string `json:"role"`
	Name    string `json:"name"`
	Content string `json:"content"`
}

// StepInfo is the machine-readable side of a step.
type StepInfo struct {
	Turn             int                `json:"turn"`
	TurnsLeft        int                `json:"turns_left"`
	Tool             string             `json:"tool"`
	Error            *ToolError         `json:"error,omitempty"`
	Result           *ResultInfo        `json:"result,omitempty"`
	RewardComponents map[string]float64 `json:"reward_components"`
	Outcome          string             `json:"outcome,omitempty" jsonschema_description:"How the episode ended; only on the step that ended it."`
	// Replayed is set on the reply to a step sent again (StepParams.Turn)
	// whose turn was already recorded: nothing ran, and the reply is
	// rebuilt from the record (result rows are not recorded: info.result
	// then holds none).
	Replayed bool `json:"replayed,omitempty" jsonschema_description:"True when the step was sent again with a turn already recorded: nothing ran and the reply is rebuilt from the record (info.result then holds no rows)."`
	// Calls says what each call of the turn got and earned, in call
	// order; present with StepResult.Observations. Tool, Error and
	// Result above are then the last call's that ran.
	Calls []CallInfo `json:"calls,omitempty" jsonschema_description:"Each call of the turn, in call order, with what it earned; present with observations. tool, error and result above are the last call's that ran."`
	// Judge says how the submission was judged; only on the step that
	// submitted.
	Judge *JudgeInfo `json:"judge,omitempty" jsonschema_description:"How the submission was judged (on the task's database alone, or on its test suite too) and what told it apart; only on the step that submitted."`
}

// ToolError says why a step failed. It is data, not a JSON-RPC error: the
// step still happened and cost its turn.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Codes of ToolError.
const (
	ErrCodeSQL            = "sql_error"       // the engine rejected or failed the statement
	ErrCodeTimeout        = "timeout"         // the statement ran past the query timeout
	ErrCodeDenied         = "denied"          // the statement would write or escape the sandbox
	ErrCodeMultiStatement = "multi_statement" // more than one statement in one call
	ErrCodeTooLarge       = "too_large"       // a value or the result exceeded the size bounds
	ErrCodeFormat         = "format_error"    // the text action holds no parseable call
	ErrCodeArguments      = "bad_arguments"   // the tool's arguments do not fit its schema
	ErrCodeUnknownTool    = "unknown_tool"    // no tool of that name
	ErrCodeNoSuchTable    = "no_such_table"   // inspect_schema named a table that does not exist
	ErrCodeNoSuchColumn   = "no_such_column"  // describe_column or search_values named a column that does not exist
	ErrCodeUnavailable    = "unavailable"     // the tool cannot answer for this database (search_values with no index)
	ErrCodeNotRun         = "not_run"         // a call of a turn that did not run: after a submit, or past --max-calls-per-turn
)

// ResultInfo is the rows a statement returned, as far as they were shown.
type ResultInfo struct {
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	RowCount  int      `json:"row_count"`
	Truncated bool     `json:"truncated"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

// Meta is the info without its rows: what a trajectory step records of
// the result (result_meta). It shares the info's columns.
func (i *ResultInfo) Meta() *ResultMeta {
	return &ResultMeta{Columns: i.Columns, RowCount: i.RowCount, Truncated: i.Truncated, ElapsedMS: i.ElapsedMS}
}

// CloseParams are the params of episode.close and episode.get.
type CloseParams struct {
	EpisodeID string `json:"episode_id" jsonschema:"minLength=1" jsonschema_description:"The episode, as episode.reset returned it."`
}

// CloseResult is the result of episode.close.
type CloseResult struct {
	EpisodeID        string             `json:"episode_id"`
	Outcome          string             `json:"outcome"`
	FinalReward      float64            `json:"final_reward"`
	TotalReward      float64            `json:"total_reward"`
	Turns            int                `json:"turns"`
	RewardComponents map[string]float64 `json:"reward_components"`
}
