package repl

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// recordEpisode plays an episode to its end through the Go client (a
// tool call, a failing one, a text action and a correct submit) and
// returns its trajectory record, as episode.get gives it.
func recordEpisode(t *testing.T, srv *testServer) schemas.Trajectory {
	t.Helper()
	sql := func(tool, q string) schemas.Action { return client.ToolCall(tool, map[string]any{"sql": q}) }
	return playActions(t, srv, []schemas.Action{
		sql(schemas.ToolExecuteSQL, "SELECT count(*) FROM books"),
		sql(schemas.ToolExecuteSQL, "SELECT nme FROM authors"),
		client.Text(`<tool_call>{"name": "inspect_schema", "arguments": {"table": "authors"}}</tool_call>`),
		sql(schemas.ToolSubmit, "SELECT count(*) FROM books JOIN authors USING (author_id) WHERE authors.name = 'Jane Austen'"),
	})
}

// playActions plays an episode of demo/library-001 with the actions,
// which must end it correct, and returns its record as episode.get gives
// it.
func playActions(t *testing.T, srv *testServer, actions []schemas.Action) schemas.Trajectory {
	t.Helper()
	ctx := context.Background()
	c, err := client.Dial(ctx, srv.url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.Reset(ctx, schemas.ResetParams{TaskID: "demo/library-001"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		if _, err := c.Step(ctx, r.EpisodeID, a); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := c.Episode(ctx, r.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Outcome != schemas.OutcomeCorrect || len(rec.Steps) != len(actions) {
		t.Fatalf("recorded %s with %d steps, want correct with %d", rec.Outcome, len(rec.Steps), len(actions))
	}
	return *rec
}

// writeRecords writes trajectory records as JSON lines.
func writeRecords(t *testing.T, recs ...schemas.Trajectory) string {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "trajectories.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplay replays recorded episodes: one as recorded, which replays
// the same, and one whose record was altered, which differs.
func TestReplay(t *testing.T) {
	srv := startServer(t, 0)
	rec := recordEpisode(t, srv)
	altered := rec
	altered.EpisodeID = "ep_altered"
	altered.Steps = append([]schemas.StepRecord(nil), rec.Steps...)
	altered.Steps[1].Observation = "Error: something else"
	altered.Steps[1].Reward = -1
	path := writeRecords(t, rec, altered)
	single := writeRecords(t, rec)
	short := rec
	short.MaxTurns = 2
	shortPath := writeRecords(t, short)
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"episode_id\": 3}\n"), 0o644)

	tests := []struct {
		name, input string
		want        []string
		not         []string
	}{
		{"a record replays the same", ".replay " + single + " " + rec.EpisodeID + "\n",
			[]string{"replaying " + rec.EpisodeID, "demo/library-001, 4 steps, outcome correct, total reward 0.98",
				"step 1/4: execute_sql: SELECT count(*) FROM books", "same observation, reward and outcome",
				"step 2/4", "Error: no such column: nme", "same observation",
				"step 3/4: text: <tool_call>", "same observation", "step 4/4: submit:", "Submitted. Correct.", "same observation",
				"replay: 4 of 4 steps sent, 0 differ; recorded outcome correct (total 0.98), new correct (total 0.98)"},
			[]string{"DIFFERS"}},
		{"the first record by default", ".replay " + path + "\n",
			[]string{"replaying " + rec.EpisodeID + " (record 1 of ", "0 differ"}, nil},
		{"an altered record differs", ".replay " + path + " 2\n",
			[]string{"replaying ep_altered (record 2 of ", "step 2/4", "recorded reward -1", "new      reward -0.02",
				"recorded observation:", "Error: something else", "new observation:", "no such column: nme",
				"DIFFERS: observation, reward", "4 of 4 steps sent, 1 differ"}, nil},
		{"a shorter turn budget ends the replay early", ".replay " + shortPath + "\n",
			[]string{"2 turns", "step 2/4", "DIFFERS: observation, reward, outcome", "the new episode has ended: 2 recorded steps were not sent",
				"2 of 4 steps sent, 2 differ; recorded outcome correct (total 0.98), new no_submit (total -0.22)"}, nil},
		{"by episode id", ".replay " + path + " ep_altered\n", []string{"replaying ep_altered (record 2 of "}, nil},
		{"no such file", ".replay " + filepath.Join(t.TempDir(), "nope.jsonl") + "\n", []string{".replay: open ", "no such file"}, nil},
		{"no such record", ".replay " + path + " 3\n", []string{"holds fewer than 3 records"}, []string{"replaying"}},
		{"no such episode", ".replay " + path + " ep_nope\n", []string{"holds no episode ep_nope"}, nil},
		{"record numbers start at 1", ".replay " + path + " 0\n", []string{"record numbers start at 1"}, nil},
		{"not a trajectory", ".replay " + bad + "\n", []string{"record 1: not a trajectory record: json: cannot unmarshal number"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, pipe(t, srv.url, tt.input, false), tt.want, tt.not)
		})
	}
}

// TestTerminalReplay steps through a recorded episode one Enter at a
// time, and stops it with q.
func TestTerminalReplay(t *testing.T) {
	srv := startServer(t, 0)
	rec := recordEpisode(t, srv)
	path := writeRecords(t, rec)
	p := startPTY(t, srv.url, 120, "NO_COLOR=1")
	p.expect("sqlgym> ")
	p.send(".replay " + path + enter)
	got := p.expect("Enter sends it, q stops> ")
	if !strings.Contains(got, "step 1/4: execute_sql: SELECT count(*) FROM books") {
		t.Errorf("the first step is not shown before it is sent:\n%q", got)
	}
	p.send(enter)
	got = p.expect("Enter sends it, q stops> ")
	if !strings.Contains(got, "same observation, reward and outcome") || !strings.Contains(got, "step 2/4") {
		t.Errorf("the first step was not replayed and compared:\n%q", got)
	}
	got = p.line("q", "library[1/8]> ")
	if !strings.Contains(got, "replay stopped") || !strings.Contains(got, "1 of 4 steps sent, 0 differ") {
		t.Errorf("q did not stop the replay:\n%q", got)
	}
	p.send(".quit" + enter)
	p.exit()
}

// TestReplayRefusesWhatIsNoRecord gives .replay files that are not
// trajectory records while an episode is live: each is refused, saying
// what it is, before anything is printed or reset, and the live episode
// goes on.
func TestReplayRefusesWhatIsNoRecord(t *testing.T) {
	srv := startServer(t, 0)
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tt := range []struct{ name, body, want string }{
		{"sft.jsonl", `{"messages":[{"role":"user","content":"How many books?"}],"tools":[]}`, "a chat conversation, as in an SFT export"},
		{"dpo.jsonl", `{"prompt":[],"chosen":[],"rejected":[]}`, "a DPO pair"},
		{"segment.log", `{"ev":"begin","ep":"ep_1","traj":{},"crc":"00"}`, "a line of a trajectory log segment"},
		{"other.jsonl", `{"name":"x"}`, "a JSON object without episode_id and task.task_id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := write(tt.name, tt.body)
			out := pipe(t, srv.url, ".reset demo/library-001\n.replay "+path+"\nSELECT 6 * 7;\n.trajectory\n", false)
			checkOutput(t, out, []string{"not a trajectory record but " + tt.want, "42", "1 of 8 turns taken, live"},
				[]string{"replaying"})
			if strings.Count(out, "closed episode") != 1 { // the one live episode, closed as the REPL ends
				t.Errorf("the live episode was closed by the refused .replay:\n%s", out)
			}
		})
	}
}
