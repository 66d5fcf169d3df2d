package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// errNoEpisode is the answer of an episode tool before start_episode,
// without episode_id.
var errNoEpisode = errors.New("no episode: call start_episode first (list_tasks shows the tasks), " +
	"or name an episode with episode_id (start_episode returns it)")

func (s *Server) listTasks(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var p schemas.TasksListParams
	if err := decodeArgs(ToolListTasks, s.args[ToolListTasks], arguments(req), &p); err != nil {
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
	if err := decodeArgs(ToolStartEpisode, s.args[ToolStartEpisode], arguments(req), &p); err != nil {
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
	if err := s.api.draining(); err != nil {
		return failed(err), nil // before closePrevious: the session's episode stays live to finish
	}
	note, err := s.closePrevious(ctx, st.episode)
	if err != nil {
		return failed(err), nil
	}
	res, err := s.api.reset(ctx, p)
	if err != nil {
		return failed(err), nil
	}
	s.owners.add(res.EpisodeID, principalOf(req))
	if st.episode != "" {
		s.owners.unhold(st.episode)
	}
	st.episode = res.EpisodeID
	return result(note+startText(res), res, false), nil
}

// closePrevious closes a session's episode that has not ended, before it
// starts another, and says so.
func (s *Server) closePrevious(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", nil
	}
	if r, err := s.api.reward(ctx, id); err != nil || !r.Live {
		return "", nil
	}
	if _, err := s.api.close(ctx, id); err != nil {
		return "", err
	}
	return fmt.Sprintf("The session's previous episode, %s, had not ended: it was closed (no_submit).\n\n", id), nil
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
	fmt.Fprintf(&b, "This episode's tools: %s. Each call costs one turn; submit answers with one SQL query and ends the episode. "+
		"A client that opens a session per call names this episode in them with episode_id %q.",
		strings.Join(names, ", "), res.EpisodeID)
	return b.String()
}

// episodeTool calls a tool of an episode, the session's or the one
// episode_id names: one episode.step with the native arguments.
func (s *Server) episodeTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		named, args, err := splitEpisodeID(name, arguments(req))
		if err != nil {
			return failed(err), nil
		}
		id, err := s.acquire(req, named)
		if err != nil {
			return failed(err), nil
		}
		defer s.owners.release(id)
		// As a native step: it runs to its end and is recorded even when
		// the client goes away.
		res, err := s.api.step(context.WithoutCancel(ctx), id, schemas.Action{Tool: name, Arguments: args})
		if err != nil {
			return failed(fmt.Errorf("%w; get_reward reads its reward, start_episode starts another", err)), nil
		}
		return result(res.Observation.Content, res, res.Info.Error != nil), nil
	}
}

// acquire is the episode a call acts on, the one it names or else the
// session's, once its owner is found to be the caller; owners.release
// must follow.
func (s *Server) acquire(req *mcp.CallToolRequest, named string) (string, error) {
	id := named
	if id == "" {
		if id = s.sessions.of(req.Session).current(); id == "" {
			return "", errNoEpisode
		}
	}
	if err := s.owners.acquire(id, principalOf(req)); err != nil {
		return "", err
	}
	return id, nil
}

// namedEpisode reads the arguments of a tool whose only argument is the
// episode it acts on, and acquires that episode.
func (s *Server) namedEpisode(tool string, req *mcp.CallToolRequest) (string, error) {
	named, rest, err := splitEpisodeID(tool, arguments(req))
	if err != nil {
		return "", err
	}
	if err := decodeArgs(tool, s.args[tool], rest, &struct{}{}); err != nil {
		return "", err
	}
	return s.acquire(req, named)
}

func (s *Server) getReward(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := s.namedEpisode(ToolGetReward, req)
	if err != nil {
		return failed(err), nil
	}
	defer s.owners.release(id)
	r, err := s.api.reward(ctx, id)
	if err != nil {
		return failed(err), nil
	}
	return result(r.text(), r, false), nil
}

func (s *Server) endEpisode(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := s.namedEpisode(ToolEndEpisode, req)
	if err != nil {
		return failed(err), nil
	}
	defer s.owners.release(id)
	sum, err := s.api.close(context.WithoutCancel(ctx), id)
	if err != nil {
		return failed(err), nil
	}
	return result(fmt.Sprintf("Episode %s closed: outcome %s, total reward %g over %d turns.",
		sum.EpisodeID, sum.Outcome, sum.TotalReward, sum.Turns), sum, false), nil
}
