package repl

import (
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestTurnsOfSeveralCalls: .text with two <tool_call> blocks says both
// ran, .trajectory shows the turn's text and each call, and .replay of a
// recorded assistant message shows its calls and replays it the same,
// which .trajectory then shows with its text and reasoning.
func TestTurnsOfSeveralCalls(t *testing.T) {
	srv := startServer(t, 0)
	input := ".reset demo/library-001\n.text\nI will look, then count.\n" +
		`<tool_call>{"name": "inspect_schema", "arguments": {"table": "books"}}</tool_call>` + "\n" +
		`<tool_call>{"name": "execute_sql", "arguments": {"sql": "SELECT count(*) FROM books"}}</tool_call>` + "\n.end\n.trajectory\n"
	checkOutput(t, pipe(t, srv.url, input, false), []string{
		`parsed as 2 calls, run in order: inspect_schema {"table":"books"}; execute_sql: SELECT count(*) FROM books`,
		"Call 1 (inspect_schema):", "Call 2 (execute_sql):",
		" 1. text of 2 calls", "    content: I will look, then count.",
		`    call_1_0 inspect_schema {"table":"books"}`, "    call_1_1 execute_sql: SELECT count(*) FROM books",
		"      1 row, columns count(*)",
	}, nil)

	rec := recordMessageEpisode(t, srv)
	path := writeRecords(t, rec)
	checkOutput(t, pipe(t, srv.url, ".replay "+path+"\n.trajectory\n", false), []string{
		`step 1/2: message: 2 calls (inspect_schema {"table":"books"}; execute_sql: SELECT count(*) FROM books), text: Looking first.`,
		"step 2/2: message: 1 call (submit: SELECT",
		"replay: 2 of 2 steps sent, 0 differ; recorded outcome correct",
		" 1. message of 2 calls", "    content: Looking first.", "    reasoning: books first",
		`    call_1_0 inspect_schema {"table":"books"}`, " 2. message of 1 call", "    call_2_0 submit: SELECT",
	}, []string{"DIFFERS"})
}

// recordMessageEpisode plays an episode of assistant messages through
// the Go client: two calls with text and reasoning, then a submit.
func recordMessageEpisode(t *testing.T, srv *testServer) schemas.Trajectory {
	t.Helper()
	text, why := "Looking first.", "books first"
	fn := func(name, args string) schemas.ToolCall {
		return schemas.ToolCall{Type: "function", Function: schemas.FunctionCall{Name: name, Arguments: []byte(args)}}
	}
	return playActions(t, srv, []schemas.Action{
		client.Message(schemas.AssistantMessage{Content: &text, ReasoningContent: &why, ToolCalls: []schemas.ToolCall{
			fn("inspect_schema", `"{\"table\": \"books\"}"`), fn("execute_sql", `{"sql": "SELECT count(*) FROM books"}`)}}),
		client.Message(schemas.AssistantMessage{ToolCalls: []schemas.ToolCall{fn("submit",
			`{"sql": "SELECT count(*) FROM books JOIN authors USING (author_id) WHERE authors.name = 'Jane Austen'"}`)}}),
	})
}
