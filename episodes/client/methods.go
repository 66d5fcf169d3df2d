package client

import (
	"context"
	"encoding/json"

	"github.com/sqlgym/sqlgym/schemas"
)

// Info calls server.info.
func (c *Client) Info(ctx context.Context) (*schemas.ServerInfo, error) {
	var r schemas.ServerInfo
	return &r, c.Call(ctx, schemas.MethodServerInfo, struct{}{}, &r)
}

// Tasks calls tasks.list.
func (c *Client) Tasks(ctx context.Context, p schemas.TasksListParams) (*schemas.TasksListResult, error) {
	var r schemas.TasksListResult
	return &r, c.Call(ctx, schemas.MethodTasksList, p, &r)
}

// Reset calls episode.reset.
func (c *Client) Reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error) {
	var r schemas.ResetResult
	return &r, c.Call(ctx, schemas.MethodReset, p, &r)
}

// Step calls episode.step.
func (c *Client) Step(ctx context.Context, episodeID string, a schemas.Action) (*schemas.StepResult, error) {
	var r schemas.StepResult
	return &r, c.Call(ctx, schemas.MethodStep, schemas.StepParams{EpisodeID: episodeID, Action: a}, &r)
}

// StepParams calls episode.step with every param, usage included.
func (c *Client) StepParams(ctx context.Context, p schemas.StepParams) (*schemas.StepResult, error) {
	var r schemas.StepResult
	return &r, c.Call(ctx, schemas.MethodStep, p, &r)
}

// CloseEpisode calls episode.close.
func (c *Client) CloseEpisode(ctx context.Context, episodeID string) (*schemas.CloseResult, error) {
	var r schemas.CloseResult
	return &r, c.Call(ctx, schemas.MethodClose, schemas.CloseParams{EpisodeID: episodeID}, &r)
}

// Episode calls episode.get.
func (c *Client) Episode(ctx context.Context, episodeID string) (*schemas.Trajectory, error) {
	var r schemas.Trajectory
	return &r, c.Call(ctx, schemas.MethodEpisodeGet, schemas.CloseParams{EpisodeID: episodeID}, &r)
}

// ToolCall is an action that calls a tool with already-parsed arguments.
func ToolCall(tool string, args map[string]any) schemas.Action {
	b, _ := json.Marshal(args)
	return schemas.Action{Tool: tool, Arguments: b}
}

// Text is an action holding a model's whole completion.
func Text(s string) schemas.Action { return schemas.Action{Text: &s} }

// Message is an action holding a model's reply as an assistant message:
// its text, reasoning and tool calls, every call run in order. The
// reply's Observations answer each call.
func Message(m schemas.AssistantMessage) schemas.Action {
	if m.Role == "" {
		m.Role = "assistant"
	}
	return schemas.Action{Message: &m}
}

// TaskSchema calls tasks.schema: the tables and columns of a task's
// database.
func (c *Client) TaskSchema(ctx context.Context, taskID string) (*schemas.TasksSchemaResult, error) {
	var r schemas.TasksSchemaResult
	return &r, c.Call(ctx, schemas.MethodTasksSchema, schemas.TasksSchemaParams{TaskID: taskID}, &r)
}
