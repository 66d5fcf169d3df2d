package openenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// Tags every episode of this surface carries, so that exports and reports
// can keep or leave out what came through it: export --exclude-tag
// origin=openenv.
const (
	OriginTag    = episodes.OriginTag
	OriginValue  = "openenv"
	episodeIDTag = "openenv_episode_id"
	// maxEpisodeID bounds OpenEnv's custom episode_id, in characters, as
	// its ResetRequest does (max_length=255).
	maxEpisodeID = 255
)

// decodeStrict decodes data into v, refusing unknown fields; empty data
// (or null) leaves v as it is.
func decodeStrict(data json.RawMessage, v any, what string) error {
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid(fmt.Sprintf("%s: %v", what, err))
	}
	if dec.More() {
		return invalid(what + ": trailing data after the JSON object")
	}
	return nil
}

// start resets an episode from a reset's data; task is the task the URL
// names ("" for none).
func (h *Handler) start(ctx context.Context, data json.RawMessage, task string) (*episode, Result, error) {
	d, ignored, err := resetOf(data, task)
	if err != nil {
		return nil, Result{}, err
	}
	if n := utf8.RuneCountInString(d.EpisodeID); n > maxEpisodeID {
		return nil, Result{}, invalid(fmt.Sprintf("episode_id: %d characters, at most %d", n, maxEpisodeID))
	}
	tags, err := tagged(d.Tags, d.EpisodeID)
	if err != nil {
		return nil, Result{}, err
	}
	d.Tags = tags
	r, err := h.engine.reset(ctx, d.ResetParams)
	if err != nil {
		return nil, Result{}, err
	}
	ep := newEpisode(r, h.cfg.Now())
	obs := ResetObservation{EpisodeID: r.EpisodeID, Task: r.Task, Messages: r.Messages, ChatTools: r.Tools,
		MaxTurns: r.MaxTurns, ActionFormat: r.ActionFormat,
		Metadata: Metadata{EpisodeID: r.EpisodeID, StepInfo: schemas.StepInfo{TurnsLeft: r.MaxTurns, RewardComponents: map[string]float64{}},
			IgnoredFields: ignored}}
	return ep, Result{Observation: obs}, nil
}

// tagged adds origin=openenv (and OpenEnv's episode_id, when sent) to a
// reset's tags, which must be a JSON object.
func tagged(raw json.RawMessage, openenvID string) (json.RawMessage, error) {
	add := map[string]string{OriginTag: OriginValue}
	if openenvID != "" {
		add[episodeIDTag] = openenvID
	}
	return episodes.AddTags(raw, add)
}

// act runs a step's action on ep (nil: no episode yet, which only
// list_tools accepts).
func (h *Handler) act(ctx context.Context, ep *episode, data json.RawMessage) (Result, error) {
	var a Action
	if err := decodeStrict(data, &a, "action"); err != nil {
		return Result{}, err
	}
	if a.Type == actionListTools {
		return Result{Observation: h.listTools(ep), Done: ep != nil && ep.ended()}, nil
	}
	native, err := nativeAction(a)
	if err != nil {
		return Result{}, err
	}
	if ep == nil {
		return Result{}, &failure{Code: CodeSession, Status: http.StatusConflict, Message: "no episode: send reset first"}
	}
	r, err := h.engine.step(ctx, ep.id, native)
	if err != nil {
		return Result{}, err
	}
	ep.advance(r)
	reward := r.Reward
	return Result{Observation: stepObservation(ep.id, r), Reward: &reward, Done: r.Terminated || r.Truncated}, nil
}

// nativeAction is the episode.step action of an OpenEnv action.
func nativeAction(a Action) (schemas.Action, error) {
	switch a.Type {
	case actionCallTool:
		if a.ToolName == "" || a.Message != nil {
			return schemas.Action{}, invalid("call_tool takes tool_name (and arguments), not message")
		}
		return schemas.Action{Tool: a.ToolName, Arguments: a.Arguments}, nil
	case actionMessage:
		if a.Message == nil || a.ToolName != "" || len(a.Arguments) > 0 {
			return schemas.Action{}, invalid("message takes message (an assistant message), not tool_name or arguments")
		}
		return schemas.Action{Message: a.Message}, nil
	}
	return schemas.Action{}, invalid(fmt.Sprintf("action type must be %s, %s or %s, got %q",
		actionCallTool, actionListTools, actionMessage, a.Type))
}

// stepObservation is the observation of a step's result.
func stepObservation(id string, r *schemas.StepResult) StepObservation {
	return StepObservation{ToolName: r.Info.Tool, Result: r.Observation.Content, Error: toolError(r.Info.Error),
		ToolMessages: r.Observations,
		Metadata:     Metadata{EpisodeID: id, StepInfo: r.Info, Terminated: r.Terminated, Truncated: r.Truncated}}
}

// toolError is OpenEnv's ToolError for a call that named no tool or whose
// arguments did not fit; a tool's own errors (bad SQL, a timeout) are its
// answer, in the result, as mcp_types.py's CallToolObservation has them.
func toolError(e *schemas.ToolError) *ToolError {
	switch {
	case e == nil:
		return nil
	case e.Code == schemas.ErrCodeUnknownTool:
		return &ToolError{ErrorType: "tool_not_found", Message: e.Message}
	case e.Code == schemas.ErrCodeArguments:
		return &ToolError{ErrorType: "invalid_args", Message: e.Message}
	}
	return nil
}

// listTools answers list_tools: the episode's tools, or the server's
// before any reset.
func (h *Handler) listTools(ep *episode) ToolsObservation {
	defs := h.engine.tools()
	md := Metadata{}
	if ep != nil {
		defs = ep.tools
		st := ep.state()
		md = Metadata{EpisodeID: ep.id, StepInfo: schemas.StepInfo{Turn: st.Turn, TurnsLeft: st.TurnsLeft, Outcome: st.Outcome}}
	}
	return ToolsObservation{Tools: mcpTools(defs), Metadata: md}
}

// mcpTools are tools in MCP's shape.
func mcpTools(defs []schemas.Tool) []MCPTool {
	out := make([]MCPTool, len(defs))
	for i, d := range defs {
		out[i] = MCPTool{Name: d.Function.Name, Description: d.Function.Description, InputSchema: d.Function.Parameters}
	}
	return out
}
