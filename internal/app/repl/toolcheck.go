package repl

import (
	"context"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// callTool runs one tool of the live episode as a step and shows it (the
// model's observation when observation is set), once it has checked that
// the episode offers the tool: a call of a tool it does not offer would
// spend a turn and pay a format penalty for the REPL's mistake.
func (s *session) callTool(ctx context.Context, tool string, args map[string]any, observation bool) {
	if !s.live() || !s.offered(tool) {
		return
	}
	r := s.step(ctx, client.ToolCall(tool, args))
	if r == nil {
		return
	}
	if tool == schemas.ToolInspectSchema && r.Info.Error == nil {
		s.learn(r.Observation.Content)
	}
	s.showStep(ctx, r, observation)
}

// offered says whether the live episode offers tool; when it does not,
// it says so, and how to get an episode that does, spending nothing.
func (s *session) offered(tool string) bool {
	mine := toolNames(s.ep.reset.Tools)
	if tool == schemas.ToolSubmit || slices.Contains(mine, tool) {
		return true
	}
	server := toolNames(s.info.Tools)
	if slices.Contains(server, tool) {
		s.out.errorf("this episode does not offer %s (it offers %s): nothing was sent, no turn spent",
			tool, strings.Join(mine, ", "))
		s.out.errorf(".reset %s --tools %s starts one that does", s.ep.reset.Task.TaskID, strings.Join(withTool(mine, tool), ","))
		return false
	}
	s.out.errorf("the server has not enabled %s (it offers %s): nothing was sent, no turn spent",
		tool, strings.Join(server, ", "))
	s.out.errorf("a server started with --tools %s offers it (sqlgym serve, or sqlgym repl without --url)",
		strings.Join(withTool(server, tool), ","))
	return false
}

// toolNames are the names of tools.
func toolNames(tools []schemas.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Function.Name
	}
	return out
}

// withTool is names, submit left out (always added), with tool added.
func withTool(names []string, tool string) []string { return withTools(names, []string{tool}) }

// withTools is names, submit left out (always added), with tools added.
func withTools(names, tools []string) []string {
	out := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == schemas.ToolSubmit })
	return append(out, tools...)
}
