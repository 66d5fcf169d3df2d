package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/schemas"
)

// Names of the tools that manage a session's episode; the episode's own
// tools keep their native names.
const (
	ToolListTasks    = "list_tasks"
	ToolStartEpisode = "start_episode"
	ToolGetReward    = "get_reward"
	ToolEndEpisode   = "end_episode"
)

// episodeIDProperty is the input schema's property that names an
// episode.
const episodeIDProperty = `{"type":"string","minLength":1,"description":"The episode to act on, as start_episode returned it; ` +
	`left out: the session's episode. A client that opens a session per call names its episode here. ` +
	`Only an episode started for the same client (the same bearer token) can be named."}`

// namesEpisode is the input schema of a tool whose only argument is the
// episode it acts on.
const namesEpisode = `{"type":"object","properties":{"episode_id":` + episodeIDProperty + `},"additionalProperties":false}`

// addTools registers the session tools, then the episode's, whose
// descriptions and input schemas are the native protocol's with
// episode_id added.
func (s *Server) addTools() {
	s.addSession(ToolListTasks, wireSchema("tasks.list.params"), s.listTasks,
		"List the tasks episodes can be played on: each task's id, dataset, database and question, a page at a time "+
			"(offset, limit), of one dataset or of all. The same as sqlgym's tasks.list.")
	s.addSession(ToolStartEpisode, wireSchema("episode.reset.params"), s.startEpisode,
		"Start an episode: a task by task_id, or one drawn from a dataset (by seed, or at random). "+
			"Returns the question to answer with SQL, the turn budget and the episode's id. The session's episode is then this one; "+
			"a previous one that had not ended is closed (recorded as no_submit). The same params as sqlgym's episode.reset; "+
			"tags are recorded with the episode, with origin set to mcp.")
	s.addSession(ToolGetReward, json.RawMessage(namesEpisode), s.getReward,
		"Read the reward of the session's episode, or of the one episode_id names: while it runs, the turns used and the reward so far; "+
			"once it has ended, its outcome (correct, mismatch, ...), final and total reward and their components.")
	s.addSession(ToolEndEpisode, json.RawMessage(namesEpisode), s.endEpisode,
		"End the session's episode, or the one episode_id names, without submitting (recorded as no_submit) and return its reward. "+
			"The same as sqlgym's episode.close.")
	for _, t := range s.api.tools() {
		name := t.Function.Name
		info, _ := describe(name)
		s.add(info.tool(name, t.Function.Description, withEpisodeID(t.Function.Parameters)), s.episodeTool(name))
	}
}

// addSession registers a session tool, keeping its input schema for its
// arguments' check.
func (s *Server) addSession(name string, input json.RawMessage, h mcp.ToolHandler, description string) {
	s.args[name] = parseArgSchema(input)
	info, _ := describe(name)
	s.add(info.tool(name, description, input), h)
}

// withEpisodeID is a native tool's input schema with the episode_id
// property added.
func withEpisodeID(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil {
		panic(err) // the registry's schemas are reflected objects: a test reads every one
	}
	var props map[string]json.RawMessage
	if err := json.Unmarshal(m["properties"], &props); err != nil || props == nil {
		props = map[string]json.RawMessage{}
	}
	props[argEpisodeID] = json.RawMessage(episodeIDProperty)
	m["properties"], _ = json.Marshal(props)
	out, _ := json.Marshal(m)
	return out
}

// add registers a tool, counting its calls.
func (s *Server) add(t *mcp.Tool, h mcp.ToolHandler) {
	calls := s.metrics.toolCalls.WithLabelValues(t.Name)
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Inc()
		return h(ctx, req)
	})
}

// wireSchema is the native protocol's generated JSON Schema of a
// method's params, without its $schema keyword, which some MCP clients
// refuse in a tool's input schema.
func wireSchema(name string) json.RawMessage {
	b, err := schemas.JSONSchema(name)
	if err != nil {
		panic(err) // the names are fixed here and the schemas embedded: a test catches a wrong one
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	delete(m, "$schema")
	out, _ := json.Marshal(m)
	return out
}

// result is a tool's answer: text for the model, the same as structured
// content for programs.
func result(text string, structured any, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured, IsError: isError}
}

// failed is the answer of a call that could not be served: an error the
// model sees and can act on, not a protocol error. A native protocol
// error is given by its message, without its JSON-RPC code.
func failed(err error) *mcp.CallToolResult {
	var e *schemas.Error
	if errors.As(err, &e) {
		return result(e.Message, nil, true)
	}
	return result(err.Error(), nil, true)
}

// arguments returns a call's arguments; none is an empty object.
func arguments(req *mcp.CallToolRequest) json.RawMessage {
	raw := req.Params.Arguments
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}
