package episodes_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestWireConformance drives a real server over a real WebSocket through
// every method, every outcome, every tool error and every JSON-RPC error,
// and checks each params sent, each reply received and each trajectory
// read back from the log against the generated JSON Schemas. Where the
// server refuses params, the schema must refuse them too.
func TestWireConformance(t *testing.T) {
	v := newValidator(t)
	seen := &coverage{outcomes: map[string]bool{}, toolCodes: map[string]bool{}}
	h := newHarness(t, options{engines: shortTimeouts})
	w := newWire(v, h)
	conformInfo(w, h)
	for _, p := range plays() {
		p.run(w, seen)
	}
	conformErrors(w)
	conformLog(v, h, seen)
	conformLimits(t, v, seen)
	v.ajvAgrees()

	if missing := v.unchecked(); len(missing) > 0 {
		t.Errorf("schemas no real document was checked against: %v", missing)
	}
	for _, o := range schemas.Outcomes() {
		if !seen.outcomes[o] {
			t.Errorf("outcome %s never seen", o)
		}
	}
	for _, code := range schemaToolCodes(t) {
		if !seen.toolCodes[code] {
			t.Errorf("tool error code %s, which the schema lists, never seen", code)
		}
	}
	for _, code := range []int{schemas.CodeParseError, schemas.CodeInvalidRequest, schemas.CodeMethodNotFound,
		schemas.CodeInvalidParams, schemas.CodeInternal, schemas.CodeEpisodeNotFound, schemas.CodeEpisodeEnded,
		schemas.CodeCapacity, schemas.CodeTaskNotFound, schemas.CodeEpisodeBusy} {
		if !v.codes[code] {
			t.Errorf("JSON-RPC error %d never seen", code)
		}
	}
}

// shortTimeouts bounds statements, submissions and golds to 250 ms, so
// that a never-ending gold ends soon in a timeout.
func shortTimeouts(e *stack.EngineConfig) {
	e.Runner.QueryTimeout = 250 * time.Millisecond
	e.Judge = judge.Config{PredTimeout: 250 * time.Millisecond, GoldTimeout: 250 * time.Millisecond}
}

// coverage is what the test saw happen.
type coverage struct {
	outcomes  map[string]bool
	toolCodes map[string]bool
}

// conformInfo checks server.info, tasks.list and tasks.schema, over the socket and over
// POST /v1/rpc, and the tools and reward spec server.info serves.
func conformInfo(w *wire, h *harness) {
	var info struct {
		Tools  []json.RawMessage `json:"tools"`
		Reward json.RawMessage   `json:"reward"`
	}
	w.ok("server.info", "", &info)
	w.ok("server.info", `{}`, nil)
	for _, tool := range info.Tools {
		w.v.check("tool", tool)
	}
	w.v.check("reward_spec", info.Reward)
	for _, params := range []string{`{}`, `{"dataset":"t","offset":1,"limit":2}`, `{"offset":1000}`, `{"limit":10000}`} {
		w.ok("tasks.list", params, nil)
	}
	w.v.postRPC(h, "tasks.list", `{"limit":2}`)
	var sch schemas.TasksSchemaResult
	w.ok("tasks.schema", `{"task_id":"t/count"}`, &sch)
	if got, want := fmt.Sprint(sch), "{t/count t shop sqlite [{items [{id INTEGER} {name TEXT} {price REAL} {category TEXT}]} {one [{x INTEGER}]}]}"; got != want {
		w.v.t.Errorf("tasks.schema of t/count = %s, want %s", got, want)
	}
	w.v.postRPC(h, "tasks.schema", `{"task_id":"t/count"}`)
}

// play is one episode: a reset, its actions, and how it must end ("" for
// an episode still live after its actions, which is then closed).
type play struct {
	name    string
	reset   string
	actions []string
	outcome string
}

func plays() []play {
	submit := func(sql string) string { return toolAction("submit", sqlArgs(sql)) }
	exec := func(sql string) string { return toolAction("execute_sql", sqlArgs(sql)) }
	return []play{
		{"every tool, then correct", `{"task_id":"t/count","tags":{"policy":"step-120","group":7},
			"reward":{"match":"spider","turn":{"ok":0.01}}}`, []string{
			toolAction("inspect_schema", `{}`), toolAction("inspect_schema", `{"table":"items"}`),
			exec("SELECT name, price FROM items"), exec("SELECT * FROM items WHERE 0"),
			exec("SELECT * FROM items WHERE 0"), submit("SELECT count(*) FROM items")}, "correct"},
		{"tags text, mismatch", `{"task_id":"t/count","action_format":"tags"}`, []string{
			textAct("<sql>SELECT name FROM items</sql>"), textAct("<solution>SELECT 1</solution>")}, "mismatch"},
		{"hermes text, pred_error", `{"task_id":"t/names","action_format":"hermes"}`, []string{
			textAct(`<tool_call>{"name": "execute_sql", "arguments": {"sql": "SELECT nope FROM items"}}</tool_call>`),
			textAct(`<tool_call>{"name": "submit", "arguments": {"sql": "SELECT name FROM nowhere"}}</tool_call>`)}, "pred_error"},
		{"pred_timeout", `{"task_id":"t/count"}`, []string{submit(neverEnds)}, "pred_timeout"},
		{"gold_error", `{"task_id":"t/broken"}`, []string{submit("SELECT 1")}, "gold_error"},
		{"gold_timeout", `{"task_id":"t/slow"}`, []string{submit("SELECT 1")}, "gold_timeout"},
		{"gold given as rows", `{"task_id":"t/answer"}`,
			[]string{submit("SELECT name FROM items WHERE price IS NOT NULL ORDER BY price LIMIT 1")}, "correct"},
		{"turns run out", `{"dataset":"t","seed":3,"max_turns":2}`, []string{
			textAct("The answer is 5."), toolAction("drop_table", `{}`)}, "no_submit"},
		{"every tool error, then closed", `{"task_id":"t/count","max_turns":12}`, []string{
			exec("DELETE FROM items"), exec("SELECT 1; SELECT 2"), exec(neverEnds),
			exec("SELECT zeroblob(2000000000)"), toolAction("inspect_schema", `{"table":"nope"}`),
			toolAction("execute_sql", `{"query":"SELECT 1"}`),
			textAct(`<tool_call>{"name": "execute_sql", "arguments": "SELECT 1"}</tool_call>`),
			`{"tool":"inspect_schema"}`}, ""},
		{"closed before a step", `{"task_id":"t/names"}`, nil, ""},
		{"messages, a call after the submit", `{"task_id":"t/count"}`, []string{
			`{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"inspect_schema","arguments":"{}"}}]}}`,
			`{"message":{"role":"assistant","content":"Counting.","reasoning_content":"count rows",
				"tool_calls":[{"type":"function","function":{"name":"execute_sql","arguments":{"sql":"SELECT count(*) FROM items"}}},
				{"id":"s","function":{"name":"submit","arguments":"{\"sql\": \"SELECT count(*) FROM items\"}"}},
				{"id":"late","type":"function","function":{"name":"execute_sql","arguments":"{\"sql\": \"SELECT 1\"}"}}]}}`}, "correct"},
	}
}

// run plays the episode, then closes and gets it, and steps it once more.
func (p play) run(w *wire, seen *coverage) {
	t := w.v.t
	var r schemas.ResetResult
	w.ok("episode.reset", p.reset, &r)
	id := fmt.Sprintf(`{"episode_id":%q}`, r.EpisodeID)
	var last schemas.StepResult
	for _, a := range p.actions {
		w.ok("episode.step", stepParams(r.EpisodeID, a), &last)
		if e := last.Info.Error; e != nil {
			seen.toolCodes[e.Code] = true
		}
		for _, c := range last.Info.Calls {
			if c.Error != nil {
				seen.toolCodes[c.Error.Code] = true
			}
		}
	}
	if last.Info.Outcome != p.outcome {
		t.Errorf("%s: outcome after the last step %q, want %q", p.name, last.Info.Outcome, p.outcome)
	}
	var live schemas.Trajectory
	w.ok("episode.get", id, &live)
	var closed schemas.CloseResult
	w.ok("episode.close", id, &closed)
	want := cmp.Or(p.outcome, schemas.OutcomeNoSubmit)
	if closed.Outcome != want {
		t.Errorf("%s: closed with outcome %q, want %q", p.name, closed.Outcome, want)
	}
	seen.outcomes[closed.Outcome] = true
	var ended schemas.Trajectory
	w.ok("episode.get", id, &ended)
	if ended.Outcome != want || len(ended.Steps) != len(p.actions) {
		t.Errorf("%s: episode.get after close: outcome %q with %d steps, want %q with %d",
			p.name, ended.Outcome, len(ended.Steps), want, len(p.actions))
	}
	w.fails("episode.step", stepParams(r.EpisodeID, toolAction("submit", sqlArgs("SELECT 1"))), schemas.CodeEpisodeEnded)
}

func toolAction(name, args string) string {
	return fmt.Sprintf(`{"tool":%q,"arguments":%s}`, name, args)
}

func sqlArgs(sql string) string { return marshal(map[string]string{"sql": sql}) }

func textAct(text string) string { return marshal(map[string]string{"text": text}) }

func stepParams(episodeID, action string) string {
	return fmt.Sprintf(`{"episode_id":%q,"action":%s}`, episodeID, action)
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// conformLog checks every trajectory the log holds, the reward spec each
// was scored with, and every line of the log as it is written.
func conformLog(v *validator, h *harness, seen *coverage) {
	conformLogLines(v, h)
	lines := bytes.Split(bytes.TrimSpace(h.recorded()), []byte("\n"))
	if len(lines) == 0 || len(lines[0]) == 0 {
		v.t.Fatal("no trajectory in the log")
	}
	for _, line := range lines {
		v.check("trajectory", line)
		var rec struct {
			Outcome    string          `json:"outcome"`
			RewardSpec json.RawMessage `json:"reward_spec"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			v.t.Fatal(err)
		}
		v.check("reward_spec", rec.RewardSpec)
		seen.outcomes[rec.Outcome] = true
	}
}

// schemaToolCodes are the tool error codes the step result schema lists.
func schemaToolCodes(t *testing.T) []string {
	b, err := schemas.JSONSchema("episode.step.result")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Info struct {
				Properties struct {
					Error struct {
						Properties struct {
							Code struct {
								Enum []string `json:"enum"`
							} `json:"code"`
						} `json:"properties"`
					} `json:"error"`
				} `json:"properties"`
			} `json:"info"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	codes := s.Properties.Info.Properties.Error.Properties.Code.Enum
	if len(codes) == 0 || !slices.Contains(codes, schemas.ErrCodeSQL) {
		t.Fatalf("the step result schema lists no tool error codes: %v", codes)
	}
	return codes
}

// conformLogLines checks each line of the log's segments, as written,
// against trajectory.line.
func conformLogLines(v *validator, h *harness) {
	paths, err := filepath.Glob(filepath.Join(h.dir, "data", "traj-*.log"))
	if err != nil || len(paths) == 0 {
		v.t.Fatalf("no trajectory log segment in %s: %v", h.dir, err)
	}
	kinds := map[string]int{}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			v.t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			v.check("trajectory.line", line)
			var ev struct{ Ev string }
			if err := json.Unmarshal(line, &ev); err != nil {
				v.t.Fatal(err)
			}
			kinds[ev.Ev]++
		}
	}
	for _, ev := range []string{"open", "begin", "step", "done"} {
		if kinds[ev] == 0 {
			v.t.Errorf("no %s line in the log (%v)", ev, kinds)
		}
	}
}
