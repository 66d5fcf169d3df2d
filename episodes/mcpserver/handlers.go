package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// errNoEpisode is the answer of an episode tool before start_episode.
var errNoEpisode = errors.New("no episode: call start_episode first (list_tasks shows the tasks)")

// decode reads a call's arguments into v, refusing unknown fields as the
// native protocol's params decoding does.
func decode(name string, req *mcp.CallToolRequest, v any) error {
	dec := json.NewDecoder(bytes.NewReader(arguments(req)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: invalid arguments: %v", name, err)
	}
	return nil
}

func (s *Server) listTasks(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var p schemas.TasksListParams
	if err := decode(ToolListTasks, req, &p); err != nil {
		return failed(err), nil
	}
	res, err := s.api.listTasks(p)
	if err != nil {
		return failed(err), nil
	}
	var b strings.Builder
	for _, t := range res.Tasks {
		fmt.Fprintf(&b, "%s (%s, database %s", t.TaskID, t.Dataset, t.DBID)
		if t.Difficulty != "" {
			fmt.Fprintf(&b, ", %s", t.Difficulty)
		}
		fmt.Fprintf(&b, "): %s\n", t.Question)
	}
	fmt.Fprintf(&b, "%d of %d tasks, from offset %d.", len(res.Tasks), res.Total, p.Offset)
	return result(b.String(), res, false), nil
}

func (s *Server) startEpisode(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var p schemas.ResetParams
	if err := decode(ToolStartEpisode, req, &p); err != nil {
		return failed(err), nil
	}
	tags, err := originTags(p.Tags)
	if err != nil {
		return failed(err), nil
	}
	p.Tags = tags
	st := s.sessions.of(req.Session)
	st.mu.Lock()
	defer st.mu.Unlock()
	ctx = context.WithoutCancel(ctx) // as a native reset: a client gone mid-call does not undo it
	var note string
	if st.episode != "" {
		if r, err := s.api.reward(ctx, st.episode); err == nil && r.Live {
			if _, err := s.api.close(ctx, st.episode); err != nil {
				return failed(err), nil
			}
			note = fmt.Sprintf("The session's previous episode, %s, had not ended: it was closed (no_submit).\n\n", st.episode)
		}
	}
	res, err := s.api.reset(ctx, p)
	if err != nil {
		return failed(err), nil
	}
	st.episode = res.EpisodeID
	return result(note+startText(res), res, false), nil
}

// originTags are a start_episode's tags with origin set to mcp: every
// episode records the surface it came through.
func originTags(raw json.RawMessage) (json.RawMessage, error) {
	tags, err := episodes.AddTags(raw, map[string]string{episodes.OriginTag: "mcp"})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ToolStartEpisode, err)
	}
	return tags, nil
}

// startText is what an agent reads of a new episode: the task, its
// question (the prompt's user message), the tools and the budget.
func startText(res *schemas.ResetResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Episode %s started: task %s of dataset %s, database %s, in %s SQL; %d turns.\n\n",
		res.EpisodeID, res.Task.TaskID, res.Task.Dataset, res.Task.DBID, res.Task.Dialect, res.MaxTurns)
	for _, m := range res.Messages {
		if m.Role == "user" {
			b.WriteString(m.Content)
			b.WriteString("\n\n")
		}
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Function.Name
	}
	fmt.Fprintf(&b, "This episode's tools: %s. Each call costs one turn; submit answers with one SQL query and ends the episode.",
		strings.Join(names, ", "))
	return b.String()
}

// episodeTool calls a tool of the session's episode: one episode.step.
func (s *Server) episodeTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id := s.sessions.of(req.Session).current()
		if id == "" {
			return failed(errNoEpisode), nil
		}
		// As a native step: it runs to its end and is recorded even when
		// the client goes away.
		res, err := s.api.step(context.WithoutCancel(ctx), id, schemas.Action{Tool: name, Arguments: arguments(req)})
		if err != nil {
			return failed(fmt.Errorf("%w; get_reward reads its reward, start_episode starts another", err)), nil
		}
		return result(res.Observation.Content, res, res.Info.Error != nil), nil
	}
}

func (s *Server) getReward(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := decode(ToolGetReward, req, &struct{}{}); err != nil {
		return failed(err), nil
	}
	id := s.sessions.of(req.Session).current()
	if id == "" {
		return failed(errNoEpisode), nil
	}
	r, err := s.api.reward(ctx, id)
	if err != nil {
		return failed(err), nil
	}
	return result(r.text(), r, false), nil
}

func (s *Server) endEpisode(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := decode(ToolEndEpisode, req, &struct{}{}); err != nil {
		return failed(err), nil
	}
	st := s.sessions.of(req.Session)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.episode == "" {
		return failed(errNoEpisode), nil
	}
	sum, err := s.api.close(context.WithoutCancel(ctx), st.episode)
	if err != nil {
		return failed(err), nil
	}
	return result(fmt.Sprintf("Episode %s closed: outcome %s, total reward %g over %d turns.",
		sum.EpisodeID, sum.Outcome, sum.TotalReward, sum.Turns), sum, false), nil
}
