package openenv

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/sqlgym/sqlgym/schemas"
)

// MCP's methods and OpenEnv's session methods of its HTTP /mcp
// (http_server.py's mcp_handler).
const (
	methodToolsList     = "tools/list"
	methodToolsCall     = "tools/call"
	methodSessionCreate = "openenv/session/create"
	methodSessionClose  = "openenv/session/close"
)

// rpcRequest is a JSON-RPC 2.0 request (mcp_types.py's JsonRpcRequest).
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
}

// rpcResponse is a JSON-RPC 2.0 response: id always, and a result or an
// error (mcp_types.py's JsonRpcResponse.model_dump).
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *schemas.Error  `json:"error,omitempty"`
}

// mcpParams are the params this surface reads: a tool call's, and
// session_id, which names the episode over HTTP (OpenEnv's rule).
type mcpParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	SessionID string          `json:"session_id"`
}

// callResult is a tools/call result: MCP's content and isError, data (the
// text, which MCPToolClient.call_tool returns), and the step's reward,
// done and metadata.
type callResult struct {
	Content           []textContent  `json:"content"`
	IsError           bool           `json:"isError"`
	Data              string         `json:"data"`
	StructuredContent map[string]any `json:"structuredContent"`
}

// sessionInfo answers openenv/session/create: OpenEnv's session_id (the
// episode's id), and what sqlgym adds beside it: the task the episode
// plays, and the fields of the reset's data it ignored.
type sessionInfo struct {
	SessionID     string   `json:"session_id"`
	TaskID        string   `json:"task_id"`
	IgnoredFields []string `json:"ignored_fields,omitempty"`
}

// sessionCreated is the answer of a session/create that started ep.
func sessionCreated(ep *episode, res Result) sessionInfo {
	obs, _ := res.Observation.(ResetObservation)
	return sessionInfo{SessionID: ep.id, TaskID: ep.taskID, IgnoredFields: obs.Metadata.IgnoredFields}
}

// callFailure is the data of the JSON-RPC error a tools/call gets when
// it named no tool of the episode or its arguments did not fit: the
// call was a turn all the same, and this is what it did.
type callFailure struct {
	ErrorType string   `json:"error_type"`
	Reward    *float64 `json:"reward"`
	Done      bool     `json:"done"`
	Metadata  Metadata `json:"metadata"`
}

// textContent is an MCP text content block.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// parseRPC reads a JSON-RPC request; a reply is returned instead when it
// is malformed.
func parseRPC(data []byte) (*rpcRequest, *mcpParams, *rpcResponse) {
	var req rpcRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return nil, nil, rpcFail(nil, schemas.CodeParseError, "Parse error: "+err.Error())
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return nil, nil, rpcFail(req.ID, schemas.CodeInvalidRequest, `Invalid request: jsonrpc must be "2.0" and method set`)
	}
	p := &mcpParams{}
	if raw := bytes.TrimSpace(req.Params); len(raw) > 0 {
		if raw[0] != '{' || json.Unmarshal(raw, p) != nil {
			return nil, nil, rpcFail(req.ID, schemas.CodeInvalidParams, "Params must be an object")
		}
	}
	return &req, p, nil
}

// rpcFail is an error reply.
func rpcFail(id json.RawMessage, code int, msg string) *rpcResponse {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return &rpcResponse{JSONRPC: "2.0", ID: id, Error: &schemas.Error{Code: code, Message: msg}}
}

// rpcOK is a result reply.
func rpcOK(id json.RawMessage, result any) *rpcResponse {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return &rpcResponse{JSONRPC: "2.0", ID: id, Result: result}
}

// mcpOnSocket answers an mcp message within the WebSocket's episode.
func (h *Handler) mcpOnSocket(ctx context.Context, ep *episode, data json.RawMessage) *rpcResponse {
	req, p, bad := parseRPC(data)
	if bad != nil {
		return bad
	}
	switch req.Method {
	case methodSessionCreate:
		if ep == nil {
			return rpcFail(req.ID, schemas.CodeInvalidRequest, "no episode on this socket: send reset first")
		}
		return rpcOK(req.ID, sessionInfo{SessionID: ep.id, TaskID: ep.taskID})
	case methodSessionClose:
		return rpcFail(req.ID, schemas.CodeInvalidRequest, "Cannot close active WebSocket-managed session via MCP method: close the WebSocket")
	}
	return h.tools(ctx, req, p, ep)
}

// serveMCP answers POST /mcp. A tool call names its episode with
// params.session_id, as OpenEnv's MCPToolClient does: the id
// openenv/session/create returned (it starts an episode; its params are a
// reset's data) or POST /reset's episode_id. tools/list without one lists
// the server's tools. task is the task the URL names ("" for none), which
// session/create plays.
func (h *Handler) serveMCP(w http.ResponseWriter, r *http.Request, task string) {
	body, err := h.readBody(w, r)
	if err != nil {
		writeFailure(w, err)
		return
	}
	req, p, bad := parseRPC(body)
	if bad != nil {
		writeJSON(w, http.StatusOK, bad)
		return
	}
	writeJSON(w, http.StatusOK, h.mcpOverHTTP(r, req, p, task))
}

// mcpOverHTTP answers one JSON-RPC request of POST /mcp.
func (h *Handler) mcpOverHTTP(r *http.Request, req *rpcRequest, p *mcpParams, task string) *rpcResponse {
	switch req.Method {
	case methodSessionCreate:
		var reset json.RawMessage
		if len(req.Params) > 0 {
			reset = resetOfParams(req.Params)
		}
		ep, res, err := h.startKept(r, reset, task)
		if err != nil {
			return rpcFail(req.ID, rpcCodeOf(err), err.Error())
		}
		return rpcOK(req.ID, sessionCreated(ep, res))
	case methodSessionClose:
		return h.closeSession(r.Context(), req.ID, p.SessionID)
	}
	var ep *episode
	if p.SessionID != "" {
		if ep = h.sessions.find(p.SessionID); ep == nil {
			return rpcFail(req.ID, schemas.CodeInvalidParams, "Unknown session_id: "+p.SessionID)
		}
	}
	resp := h.tools(r.Context(), req, p, ep)
	if ep != nil && ep.ended() {
		h.sessions.drop(ep.id)
	}
	return resp
}

// closeSession answers openenv/session/close over HTTP: the session's
// episode is closed (recorded no_submit if it had not ended). A session
// whose episode has ended (a submit, or its turns ran out) has nothing
// left to close and is answered closed, since MCPToolClient.close sends
// session/close after the episode's last call as after any other.
func (h *Handler) closeSession(ctx context.Context, id json.RawMessage, sid string) *rpcResponse {
	switch {
	case sid == "":
		return rpcFail(id, schemas.CodeInvalidParams, "Invalid params - 'session_id' is required")
	case h.sessions.drop(sid):
		h.engine.close(ctx, sid)
	case !h.endedEpisode(sid):
		return rpcFail(id, schemas.CodeInvalidParams, "Unknown session_id: "+sid)
	}
	return rpcOK(id, map[string]any{"session_id": sid, "closed": true})
}

// endedEpisode reports whether the Manager knows an episode of that id
// that has ended.
func (h *Handler) endedEpisode(id string) bool {
	t, err := h.engine.record(id)
	return err == nil && t.Outcome != ""
}

// rpcServerError is JSON-RPC's generic server error, which OpenEnv's
// session/create answers when no session fits (mcp_types.py).
const rpcServerError = -32000

// rpcCodeOf is the JSON-RPC code of a failed session/create: invalid
// params for malformed reset data, a server error otherwise.
func rpcCodeOf(err error) int {
	if failureOf(err).Code == CodeValidation {
		return schemas.CodeInvalidParams
	}
	return rpcServerError
}

// resetOfParams are a session/create's params less session_id: the
// reset's data.
func resetOfParams(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params // resetOf reports it
	}
	delete(m, "session_id")
	b, _ := json.Marshal(m)
	return b
}

// tools answers tools/list and tools/call within ep (nil: none).
func (h *Handler) tools(ctx context.Context, req *rpcRequest, p *mcpParams, ep *episode) *rpcResponse {
	switch req.Method {
	case methodToolsList:
		return rpcOK(req.ID, map[string]any{"tools": h.listTools(ep).Tools})
	case methodToolsCall:
		if p.Name == "" {
			return rpcFail(req.ID, schemas.CodeInvalidParams, "Missing 'name' in params")
		}
		if ep == nil {
			return rpcFail(req.ID, schemas.CodeInvalidRequest, "no episode: a tool call runs within one (reset first, or name it with session_id)")
		}
		action, _ := json.Marshal(Action{Type: actionCallTool, ToolName: p.Name, Arguments: p.Arguments})
		res, err := h.act(ctx, ep, action)
		if err != nil {
			f := failureOf(err)
			return rpcFail(req.ID, schemas.CodeInternal, f.Code+": "+f.Message)
		}
		if res.Observation.(StepObservation).Error != nil {
			return callFailed(req.ID, res)
		}
		return rpcOK(req.ID, callResultOf(res))
	}
	return rpcFail(req.ID, schemas.CodeMethodNotFound, "Method not found: "+req.Method)
}

// callFailed answers a tools/call that named no tool of the episode, or
// whose arguments did not fit: a JSON-RPC error -32602 with the message
// the WebSocket's observation.error carries. OpenEnv's own /mcp answers a
// tool it does not have with a JSON-RPC error (http_server.py's
// mcp_handler), and MCPToolClient.call_tool raises on one, as it raises
// on the WebSocket's observation.error: so a call that raises on one path
// raises on every path. The call was a turn all the same; the error's
// data say what it did.
func callFailed(id json.RawMessage, res Result) *rpcResponse {
	obs := res.Observation.(StepObservation)
	r := rpcFail(id, schemas.CodeInvalidParams, obs.Error.Message)
	r.Error.Data = callFailure{ErrorType: obs.Error.ErrorType, Reward: res.Reward, Done: res.Done, Metadata: obs.Metadata}
	return r
}

// callResultOf is the tools/call result of a step whose call ran: a
// tool's own errors (bad SQL, a timeout) are its answer, not isError.
func callResultOf(res Result) callResult {
	obs := res.Observation.(StepObservation)
	return callResult{
		Content: []textContent{{Type: "text", Text: obs.Result}}, IsError: false, Data: obs.Result,
		StructuredContent: map[string]any{"reward": res.Reward, "done": res.Done, "metadata": obs.Metadata},
	}
}
