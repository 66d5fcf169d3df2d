package openenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/sqlgym/sqlgym/base/fairshare"
	"github.com/sqlgym/sqlgym/schemas"
)

// detail is an HTTP error body, as FastAPI writes one, with OpenEnv's
// error code beside it.
type detail struct {
	Detail string `json:"detail"`
	Code   string `json:"code,omitempty"`
}

// StepRequest is the body of POST /step: OpenEnv's StepRequest, and the
// episode it steps (POST /reset's observation.episode_id).
type StepRequest struct {
	Action    json.RawMessage `json:"action"`
	EpisodeID string          `json:"episode_id"`
	TimeoutS  *float64        `json:"timeout_s,omitempty" jsonschema_description:"Accepted, ignored: the server's --query-timeout bounds each statement."`
	RequestID string          `json:"request_id,omitempty"`
}

// readBody reads a request body within MaxFrameBytes.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxFrameBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, &failure{Code: CodeValidation, Status: http.StatusRequestEntityTooLarge,
			Message: fmt.Sprintf("request body too large: at most %d bytes (the server's --max-frame-bytes)", h.cfg.MaxFrameBytes)}
	}
	if err != nil {
		return nil, invalid("reading the body: " + err.Error())
	}
	return b, nil
}

// serveReset starts an episode that HTTP clients step by its id: it lives
// until it ends, POST /mcp's openenv/session/close closes it, or it has
// been idle past --idle-timeout.
func (h *Handler) serveReset(w http.ResponseWriter, r *http.Request, task string) {
	body, err := h.readBody(w, r)
	if err != nil {
		writeFailure(w, err)
		return
	}
	_, res, err := h.startKept(r, body, task)
	if err != nil {
		writeFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// startKept starts an HTTP client's episode in a room of the session
// bound.
func (h *Handler) startKept(r *http.Request, data json.RawMessage, task string) (*episode, Result, error) {
	client := fairshare.ClientOfAddr(r.RemoteAddr)
	t, err := h.sessions.reserve(client)
	if err != nil {
		h.refused.Inc()
		return nil, Result{}, &failure{Code: CodeCapacityReached, Status: http.StatusServiceUnavailable, Message: h.overBound(err)}
	}
	ep, res, err := h.start(fairshare.WithClient(r.Context(), client), data, task)
	if err != nil {
		t.Release()
		return nil, Result{}, err
	}
	h.sessions.keep(ep, t)
	return ep, res, nil
}

// overBound is the message of a session refused at the bound: the
// refusal says where the client stands against its share.
func (h *Handler) overBound(refusal error) string {
	return fmt.Sprintf("%d OpenEnv sessions at once (the server's --max-openenv-sessions): %v; retry later",
		h.cfg.MaxSessions, refusal)
}

// serveStep runs an action of the episode the body names.
func (h *Handler) serveStep(w http.ResponseWriter, r *http.Request) {
	body, err := h.readBody(w, r)
	if err != nil {
		writeFailure(w, err)
		return
	}
	var req StepRequest
	if err := decodeStrict(body, &req, "step request"); err != nil {
		writeFailure(w, err)
		return
	}
	if len(req.Action) == 0 || req.EpisodeID == "" {
		writeFailure(w, invalid("a step request takes action and episode_id (POST /reset's observation.episode_id)"))
		return
	}
	ep, err := h.keptEpisode(req.EpisodeID)
	if err != nil {
		writeFailure(w, err)
		return
	}
	res, err := h.act(r.Context(), ep, req.Action)
	if err != nil {
		if failureOf(err).Status == http.StatusNotFound {
			h.sessions.drop(ep.id) // the Manager expired it
		}
		writeFailure(w, err)
		return
	}
	if res.Done {
		h.sessions.drop(ep.id)
	}
	writeJSON(w, http.StatusOK, res)
}

// keptEpisode is the HTTP client's episode of that id.
func (h *Handler) keptEpisode(id string) (*episode, error) {
	if ep := h.sessions.find(id); ep != nil {
		return ep, nil
	}
	return nil, &failure{Code: CodeSession, Status: http.StatusNotFound,
		Message: fmt.Sprintf("no live episode %q started over HTTP (it may have ended or expired)", id)}
}

// serveState answers the state of ?episode_id= (an HTTP client's episode,
// or any the Manager still knows); without one, the state of no episode,
// as OpenEnv's stateless GET /state answers a fresh environment's.
func (h *Handler) serveState(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("episode_id")
	if id == "" {
		writeJSON(w, http.StatusOK, State{})
		return
	}
	if ep := h.sessions.find(id); ep != nil {
		writeJSON(w, http.StatusOK, ep.state())
		return
	}
	t, err := h.engine.record(id)
	if err != nil {
		writeFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, stateOfRecord(t))
}

// metadata answers GET /metadata: OpenEnv's EnvironmentMetadata.
func (h *Handler) metadata() map[string]any {
	return map[string]any{
		"name": "sqlgym",
		"description": "Text-to-SQL episodes: a question over a database, tools to inspect its schema and run " +
			"read-only SQL, and a reward for the submitted query's result against the gold's.",
		"version": h.engine.version(), "readme_content": nil, "author": nil, "documentation_url": nil,
	}
}

// writeFailure writes err as an HTTP error.
func writeFailure(w http.ResponseWriter, err error) {
	f := failureOf(err)
	status := f.Status
	if status == 0 {
		status = http.StatusUnprocessableEntity
	}
	writeJSON(w, status, detail{Detail: f.Message, Code: f.Code})
}

// writeJSON writes v as a JSON reply.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := schemas.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"detail":"encoding the reply failed"}`)
	}
	writeRaw(w, status, b)
}

// writeRaw writes a JSON reply already encoded.
func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
