package repl

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/examples/rewards"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestScript pipes sessions through the REPL against a real server and
// checks what they print, in order.
func TestScript(t *testing.T) {
	srv := startServer(t, 0)
	tests := []struct {
		name  string
		input string
		want  []string // substrings that must appear, in this order
		not   []string // substrings that must not appear
	}{
		{
			name:  "sql without an episode is refused with a hint",
			input: "SELECT 1;\n.schema\n.submit SELECT 1\n.text\n.trajectory\n.prompt\n",
			want: []string{"no episode: .reset starts one", "no episode: .reset starts one", "no episode: .reset starts one",
				"no episode: .reset starts one", "no episode: .reset starts one", "no episode: .reset starts one"},
		},
		{
			name:  "unknown commands and bad usage",
			input: ".frobnicate\n.tasks a b c\n.tasks demo 0\n.reset --seed x\n.reset a b\n.reset --color red\n.replay\n.schema a b\n",
			want: []string{"unknown command .frobnicate: .help lists the commands", "usage: .tasks [dataset] [n]",
				"usage: .tasks [dataset] [n]", `.reset: --seed must be an integer, got "x"`, `one task id or dataset, got "a" and "b"`,
				"unknown flag --color", "usage: .replay FILE", "usage: .schema [table]"},
		},
		{
			name:  "the server's errors are shown with its message",
			input: ".reset demo/nope-999\n.reset nodataset/x\n.tasks nodataset\n.reset demo/library-001 --format yaml\n",
			want:  []string{`error: no task "demo/nope-999" in dataset "demo"`, `no dataset "nodataset"`, `no dataset "nodataset"`, "yaml"},
			not:   []string{"episode ep_"},
		},
		{
			name:  "tasks lists a dataset's first tasks",
			input: ".tasks demo 2\n.tasks 1\n",
			want: []string{"task_id", "question", "demo/library-001", "demo/library-002", "(2 of 64 tasks)",
				"demo/library-001", "(1 of 64 tasks)"},
		},
		{
			name:  "a seed draws the same task every time",
			input: ".reset demo --seed 7\n.reset --seed=7\n",
			want:  []string{"episode ep_", "closed episode ep_", "(no_submit, total reward -0.2)", "episode ep_"},
		},
		{
			name: "a multi-line statement runs once it ends with a semicolon",
			input: ".reset demo/library-001\nSELECT name\n  FROM authors -- the writers\n  WHERE name LIKE 'J%'\n" +
				"  ORDER BY name;\nSELECT 'a;b' AS s; -- a comment after the end\n",
			want: []string{" name", "Jane Austen", "(2 rows, ", "reward 0 (turn.ok 0) · turn 1/8", " s", "a;b", "turn 2/8"},
		},
		{
			name:  "results keep numbers exact, NULLs and line breaks visible",
			input: ".reset demo/library-001\nSELECT 9007199254740993 AS big, NULL AS nul, 'a' || char(10) || 'b' AS two, 0.1 AS f;\n",
			want:  []string{"9007199254740993", "NULL", `a\nb`, "0.1"},
		},
		{
			name:  "a failing query shows the engine's message and its cost",
			input: ".reset demo/library-001\nSELECT nme FROM authors;\n",
			want:  []string{"error [sql_error]: no such column: nme", "reward -0.02 (turn.tool_error -0.02) · turn 1/8"},
		},
		{
			name: "a whole episode to its outcome",
			input: ".reset demo/library-001\n.schema books\n" +
				".submit SELECT count(*) FROM books JOIN authors USING (author_id) WHERE authors.name = 'Jane Austen';\n" +
				"SELECT 1;\n.reward\n.quit\nSELECT 2;\n",
			want: []string{"How many different titles by Jane Austen", "the model sees:", "Table books",
				"reward 1 (final.correct 1, turn.ok 0) · turn 2/8", "CORRECT: the result matches the gold's.",
				"Episode over after 2 turns: total reward 1.", "the episode has ended (correct): .reset starts another",
				"reward spec sha256:", "final.correct", "total                  1"},
			not: []string{"closed episode", "(1 row"},
		},
		{
			name:  "a wrong answer is a mismatch",
			input: ".reset demo/library-001\n.submit SELECT 3\n",
			want:  []string{"final.executes 0.1", "MISMATCH: the query ran, but its result differs from the gold's."},
		},
		{
			name:  "a submission that fails",
			input: ".reset demo/library-001\n.submit SELECT nope FROM books\n",
			want:  []string{"error [sql_error]: no such column: nope", "final.pred_error -0.1", "FAILED: the submitted query did not run."},
		},
		{
			name: "running out of turns",
			input: ".reset demo/library-001\nSELECT 1;\nSELECT 2;\nSELECT 3;\nSELECT 4;\nSELECT 5;\nSELECT 6;\nSELECT 7;\n" +
				"SELECT 8;\n",
			want: []string{"final.no_submit -0.2", "turn 8/8", "NO SUBMISSION: the turns ran out before a submit."},
		},
		{
			name:  "a live episode is closed at the end of the input",
			input: ".reset demo/library-001\nSELECT 1;\n",
			want:  []string{"closed episode ep_", "(no_submit, total reward -0.2)"},
		},
		{
			name:  "text is parsed in the episode's format",
			input: ".reset demo/library-001\n.text\n<tool_call>{\"name\": \"inspect_schema\", \"arguments\": {}}</tool_call>\n.end\n",
			want:  []string{`parsed as inspect_schema {}`, "the model sees:", "authors("},
		},
		{
			name:  "text with no call is a format error",
			input: ".reset demo/library-001 --format tags\n.text I think the answer is 4.\n.end\n",
			want:  []string{"tags format", "error [format_error]", "the model sees:", "turn.format_error -0.05"},
			not:   []string{"parsed as"},
		},
		{
			name:  "text cut short by the end of the input is not sent",
			input: ".reset demo/library-001\n.text\n<sql>SELECT 1</sql>\n",
			want:  []string{"the input ended before .end: the text was not sent", "(no_submit, total reward -0.2)"},
		},
		{
			name:  "a statement cut short by the end of the input is not run",
			input: ".reset demo/library-001\nSELECT 1\n",
			want:  []string{"the input ended inside a statement (no closing ;): it was not run"},
			not:   []string{"(1 row"},
		},
		{
			name:  "prompt shows the messages and the tools",
			input: ".reset demo/library-003\n.prompt\n",
			want: []string{"evidence: A loan that has not been returned", "── system ──", "SQL", "── user ──",
				"How many loans are still out", "── tools (3; text actions in hermes format) ──", "inspect_schema",
				`parameters: {"`, "execute_sql", "submit"},
		},
		{
			name:  "reward before any episode shows the server's spec",
			input: ".reward\n.help\n",
			want: []string{"the server's reward spec (no episode yet):", "match bird", "correct 1, mismatch 0, pred_error -0.1",
				"tool_error -0.02", ".replay FILE"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, pipe(t, srv.url, tt.input, false), tt.want, tt.not)
		})
	}
}

// TestScriptPaperTerms: under the retoolsql preset, .reward shows the
// spec's new terms and what they paid, and a constant answer is told
// apart from a correct one.
func TestScriptPaperTerms(t *testing.T) {
	spec, err := rewards.Preset("retoolsql")
	if err != nil {
		t.Fatal(err)
	}
	srv := startServerPaying(t, 0, spec)
	input := ".reset demo/library-001\n" +
		".submit SELECT count(*) FROM books AS b JOIN authors AS a ON a.author_id = b.author_id WHERE a.name = 'Jane Austen'\n" +
		".reward\n.reset demo/library-001\n.submit SELECT 4\n"
	checkOutput(t, pipe(t, srv.url, input, false), []string{
		"CORRECT: the result matches the gold's.",
		"executes_on_correct true", "table_jaccard 0.5", "nonempty 0.1", "length -0.1", "requires_table_read true", "format_ok 0.2",
		"final.nonempty", "final.table_jaccard", "turn.format_ok", "total                  3.8",
		"final.mismatch 0", "NOT PAID AS CORRECT: the result matches the gold's, but the query reads no table",
	}, nil)
}

// TestScriptIsPlain checks that piped output has no prompts and no colour,
// and that echo shows each command after its prompt.
func TestScriptIsPlain(t *testing.T) {
	srv := startServer(t, 0)
	input := ".reset demo/library-001\nSELECT nme\n FROM authors;\n"
	plain := pipe(t, srv.url, input, false)
	if strings.Contains(plain, "\x1b[") || strings.Contains(plain, "sqlgym>") || strings.Contains(plain, "...>") {
		t.Errorf("piped output holds colour or prompts:\n%q", plain)
	}
	echoed := pipe(t, srv.url, input, true)
	want := regexp.MustCompile(`(?m)^sqlgym> \.reset demo/library-001\n(.*\n)*library\[0/8\]> SELECT nme\n {9}\.\.\.>  FROM authors;\nerror`)
	if !want.MatchString(echoed) {
		t.Errorf("echoed output does not show the commands after their prompts:\n%s", echoed)
	}
}

// syncBuffer is a buffer that the REPL writes and the test reads at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until out holds want.
func waitFor(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	if !waitfor.Within(waitfor.Timeout, func() bool { return strings.Contains(out.String(), want) }) {
		t.Fatalf("output never held %q:\n%s", want, out.String())
	}
}

// TestServerGone checks that the REPL says so in one line when the
// server goes away in the middle of a session, and goes on.
func TestServerGone(t *testing.T) {
	srv := startServer(t, 0)
	in, feed := io.Pipe()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), Config{URL: srv.url, Stdin: in, Stdout: &out}) }()
	io.WriteString(feed, ".reset demo/library-001\n")
	waitFor(t, &out, "episode ep_")
	srv.stop()
	io.WriteString(feed, "SELECT 1;\n")
	waitFor(t, &out, "the server went away")
	io.WriteString(feed, "SELECT 2;\n.help\n")
	waitFor(t, &out, "the server still does not answer")
	waitFor(t, &out, ".quit ")
	feed.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the REPL did not end with its input; output:\n%s", out.String())
	}
}

// TestCallFailed checks what the REPL makes of the server's errors about
// the episode it is playing.
func TestCallFailed(t *testing.T) {
	tests := []struct {
		err      error
		want     string
		keepsEp  bool
		hasEnded bool
	}{
		{&schemas.Error{Code: schemas.CodeEpisodeNotFound, Message: "no episode ep_1"}, "no longer has this episode", false, false},
		{&schemas.Error{Code: schemas.CodeEpisodeEnded, Message: "episode ep_1 has ended"}, "error: episode ep_1 has ended", true, true},
		{&schemas.Error{Code: schemas.CodeCapacity, Message: "4096 live episodes"}, "error: 4096 live episodes", true, false},
		{fmt.Errorf("episode.step: %w", context.Canceled), "error: episode.step: context canceled", true, false},
		{fmt.Errorf("episode.step: write: %w", io.ErrClosedPipe), "the server went away", true, false},
	}
	for _, tt := range tests {
		var out strings.Builder
		s := &session{out: &printer{w: &out}, ep: &episode{reset: &schemas.ResetResult{EpisodeID: "ep_1"}}}
		s.callFailed(tt.err)
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("%v: output %q lacks %q", tt.err, out.String(), tt.want)
		}
		if lost := strings.Contains(tt.want, "went away"); s.lost != lost {
			t.Errorf("%v: lost = %v, want %v", tt.err, s.lost, lost)
		}
		if (s.ep != nil) != tt.keepsEp || s.ep != nil && s.ep.ended != tt.hasEnded {
			t.Errorf("%v: episode kept %v (ended %v), want kept %v (ended %v)", tt.err, s.ep != nil, s.ep != nil && s.ep.ended, tt.keepsEp, tt.hasEnded)
		}
	}
}
