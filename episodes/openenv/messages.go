package openenv

import (
	"encoding/json"

	"github.com/sqlgym/sqlgym/schemas"
)

// Message types of the WebSocket, as OpenEnv's http_server.py reads and
// writes them.
const (
	typeReset       = "reset"
	typeStep        = "step"
	typeState       = "state"
	typeClose       = "close"
	typeMCP         = "mcp"
	typeObservation = "observation"
	typeError       = "error"
)

// inMessage is a message a client sends on the WebSocket.
type inMessage struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

// outMessage is a message the server sends on the WebSocket.
type outMessage struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// errorData is the data of an error message (WSErrorResponse); capacity
// errors add the session counts, as OpenEnv's do.
type errorData struct {
	Message        string `json:"message"`
	Code           string `json:"code"`
	ActiveSessions *int   `json:"active_sessions,omitempty"`
	MaxSessions    *int   `json:"max_sessions,omitempty"`
}

// Result is what a reset or a step answers: OpenEnv's ResetResponse and
// StepResponse, the data of an observation message.
type Result struct {
	Observation any      `json:"observation" jsonschema_description:"A ResetObservation, a StepObservation or a ToolsObservation."`
	Reward      *float64 `json:"reward" jsonschema_description:"The step's reward: the sum of metadata.reward_components; null after a reset or list_tools."`
	Done        bool     `json:"done" jsonschema_description:"True once the episode has ended (a submit, or the turns ran out)."`
}

// ResetData are the data of a reset message and the body of POST /reset:
// episode.reset's params, and OpenEnv's episode_id. Other fields are
// dropped and listed in the answer's metadata.ignored_fields.
type ResetData struct {
	schemas.ResetParams
	EpisodeID string `json:"episode_id,omitempty" jsonschema:"maxLength=255" jsonschema_description:"OpenEnv's custom episode identifier: sqlgym names its episodes itself and records this one in the tags as openenv_episode_id."`
}

// Action is the data of a step message, the action of POST /step: a tool
// call (call_tool), the episode's tools (list_tools), or the model's reply
// as an assistant message whose tool calls all run in order (message).
type Action struct {
	Type      string                    `json:"type" jsonschema:"enum=call_tool,enum=list_tools,enum=message" jsonschema_description:"call_tool (tool_name and arguments), list_tools, or message (message)."`
	ToolName  string                    `json:"tool_name,omitempty" jsonschema_description:"The tool called, for call_tool."`
	Arguments json.RawMessage           `json:"arguments,omitempty" jsonschema_description:"The tool's arguments, an object, for call_tool."`
	Message   *schemas.AssistantMessage `json:"message,omitempty" jsonschema_description:"The model's reply (OpenAI chat shape), for message."`
	Metadata  map[string]any            `json:"metadata,omitempty" jsonschema_description:"OpenEnv's action metadata; ignored."`
}

// Action types.
const (
	actionCallTool  = "call_tool"
	actionListTools = "list_tools"
	actionMessage   = "message"
)

// ResetObservation is the observation of a reset: what a model needs to
// start. The tools are in chat_tools, not tools: OpenEnv's MCPToolClient
// reads an observation holding "tools" as a list_tools answer.
type ResetObservation struct {
	EpisodeID    string            `json:"episode_id"`
	Task         schemas.TaskView  `json:"task"`
	Messages     []schemas.Message `json:"messages" jsonschema_description:"The prompt: system and user messages."`
	ChatTools    []schemas.Tool    `json:"chat_tools" jsonschema_description:"The episode's tools in the OpenAI function-calling shape, for a chat template's tools= argument."`
	MaxTurns     int               `json:"max_turns"`
	ActionFormat string            `json:"action_format"`
	Metadata     Metadata          `json:"metadata"`
}

// StepObservation is the observation of a call_tool or message step, in
// the shape of OpenEnv's CallToolObservation.
type StepObservation struct {
	ToolName     string                `json:"tool_name" jsonschema_description:"The tool called (the last one that ran, for a message)."`
	Result       string                `json:"result" jsonschema_description:"The tool's answer as the model sees it; a tool's own errors (bad SQL) are in it."`
	Error        *ToolError            `json:"error" jsonschema_description:"Set when the call named no tool of the episode or its arguments did not fit; the turn is still spent."`
	ToolMessages []schemas.ToolMessage `json:"tool_messages,omitempty" jsonschema_description:"One tool message per call, for a message action."`
	Metadata     Metadata              `json:"metadata"`
}

// ToolError is OpenEnv's ToolError.
type ToolError struct {
	ErrorType string `json:"error_type" jsonschema:"enum=execution_error,enum=invalid_args,enum=transport_error,enum=tool_not_found,enum=timeout"`
	Message   string `json:"message"`
}

// ToolsObservation answers list_tools, in the shape of OpenEnv's
// ListToolsObservation.
type ToolsObservation struct {
	Tools    []MCPTool `json:"tools"`
	Metadata Metadata  `json:"metadata"`
}

// MCPTool is a tool as MCP's tools/list shows it.
type MCPTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Metadata is where OpenEnv keeps what is not the observation itself: the
// episode, and the step's info as episode.step returns it (turn, turns
// left, tool, error, result rows, reward components, outcome, calls).
type Metadata struct {
	EpisodeID string `json:"episode_id,omitempty"`
	schemas.StepInfo
	Terminated bool `json:"terminated" jsonschema_description:"True after a submit."`
	Truncated  bool `json:"truncated" jsonschema_description:"True when the turns ran out without a submit."`
	// IgnoredFields are the fields of a reset's data that sqlgym does
	// not know: dropped, as OpenEnv's server drops them.
	IgnoredFields []string `json:"ignored_fields,omitempty" jsonschema_description:"A reset's answer only: the fields of its data sqlgym does not know, dropped as OpenEnv's server drops the keyword arguments an environment's reset does not take."`
}

// State is the answer of a state message and of GET /state: OpenEnv's
// State (episode_id, step_count) and the episode's turn, turns left and
// outcome.
type State struct {
	EpisodeID   *string `json:"episode_id"`
	StepCount   int     `json:"step_count" jsonschema_description:"Turns taken."`
	TaskID      string  `json:"task_id,omitempty"`
	Turn        int     `json:"turn"`
	TurnsLeft   int     `json:"turns_left"`
	MaxTurns    int     `json:"max_turns"`
	Outcome     string  `json:"outcome,omitempty" jsonschema_description:"How the episode ended; absent while it runs."`
	Done        bool    `json:"done"`
	TotalReward float64 `json:"total_reward"`
}
