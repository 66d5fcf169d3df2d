package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/consumers"
)

// TestExport exports the recorded demo episodes in each format, with the
// filters, and reads a raw export back through --trajectories.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	serveAndDrive(t, []string{"--data-dir", dir}, playDemo(t, 32))
	sft := filepath.Join(dir, "sft.jsonl")
	report := mustRun(t, "export", "--data-dir", dir, "--format", "sft", "--outcome", "correct", "--best-per-task", "1", "--out", sft)
	lines := jsonLines(t, sft)
	for _, want := range []string{"read 32 episodes", "outcome", "best-per-task", "kept " + strconv.Itoa(len(lines)) + " episodes"} {
		if !strings.Contains(report, want) {
			t.Errorf("export report lacks %q:\n%s", want, report)
		}
	}
	if len(lines) == 0 || len(lines) > 32 {
		t.Fatalf("%d sft lines", len(lines))
	}
	for _, l := range lines {
		msgs := l["messages"].([]any)
		if len(l) != 2 || l["tools"] == nil || len(msgs) < 3 || msgs[0].(map[string]any)["role"] != "system" {
			t.Errorf("sft line is not {messages: [system, user, ...], tools}: %v", l)
		}
	}
	// To standard output, the report goes to standard error.
	stdout, stderr, err := sqlgym(t, "export", "--data-dir", dir, "--format", "dpo")
	if err != nil || !strings.Contains(stderr, "dpo pairs") || strings.Count(stdout, "\n") == 0 || !strings.Contains(stdout, `"chosen"`) {
		t.Errorf("dpo to stdout: err %v\nstdout:\n%.300s\nstderr:\n%s", err, stdout, stderr)
	}
	// raw -> read back -> raw again: the same bytes; --out's missing
	// folders are made.
	raw, again := filepath.Join(dir, "raw.jsonl"), filepath.Join(dir, "not", "yet", "again.jsonl")
	mustRun(t, "export", "--data-dir", dir, "--format", "raw", "--out", raw)
	mustRun(t, "export", "--trajectories", raw, "--format", "raw", "--out", again)
	a, _ := os.ReadFile(raw)
	b, _ := os.ReadFile(again)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("raw export did not round-trip through the reader (%d and %d bytes)", len(a), len(b))
	}
	if n := len(jsonLines(t, raw)); n != 32 {
		t.Errorf("raw export has %d records, want 32", n)
	}
}

// TestExportTargets writes the recorded demo episodes for each consumer
// and loads every line the way that consumer does (internal/testkit/consumers):
// every chat ends on the assistant's last call and renders in the chat
// templates its shape suits, the llamafactory target merges its entry
// into an existing dataset_info.json and its file survives datasets
// 4.0.0's loading, and dpo pairs load as TRL's DPOTrainer reads them.
func TestExportTargets(t *testing.T) {
	dir := t.TempDir()
	serveAndDrive(t, []string{"--data-dir", dir}, playDemo(t, 32))
	templates := func(args string) func(line []byte) error {
		return func(line []byte) error {
			c, err := consumers.TRLSFT(line)
			if err != nil {
				return err
			}
			for _, tpl := range consumers.Templates() {
				// Every template takes object arguments but DeepSeek-V3's original, which takes only
				// strings; a chat without calls (a text action written as text) suits them all.
				want := c.Tools == nil || tpl.Args == consumers.ArgsEither || (tpl.Args == consumers.ArgsString) == (args == "string")
				if err := tpl.CheckChat(c.Messages, c.Tools); (err == nil) != want {
					return fmt.Errorf("template %s with %s arguments: %v", tpl.Name, args, err)
				}
			}
			return nil
		}
	}
	loaders := map[string]func(line []byte) error{"openai": consumers.OpenAIChat, "trl": templates("object")}
	for target, load := range loaders {
		out := filepath.Join(dir, target+".jsonl")
		mustRun(t, "export", "--data-dir", dir, "--format", "sft", "--target", target, "--out", out)
		checkLines(t, out, 32, load)
	}
	out := filepath.Join(dir, "strings.jsonl")
	mustRun(t, "export", "--data-dir", dir, "--format", "sft", "--arguments", "string", "--split-calls", "--text-actions", "text", "--out", out)
	checkLines(t, out, 32, templates("string"))
	// The default target is trl.
	mustRun(t, "export", "--data-dir", dir, "--format", "sft", "--out", filepath.Join(dir, "default.jsonl"))
	if a, b := readFile(t, filepath.Join(dir, "default.jsonl")), readFile(t, filepath.Join(dir, "trl.jsonl")); a != b {
		t.Error("sft without --target differs from --target trl")
	}

	lf := filepath.Join(dir, "lf")
	os.Mkdir(lf, 0o755)
	other := `{"mine": {"file_name": "mine.json", "formatting": "sharegpt"}}`
	os.WriteFile(filepath.Join(lf, "dataset_info.json"), []byte(other), 0o644)
	for range 2 { // a second export replaces its entry, it does not add one
		report := mustRun(t, "export", "--data-dir", dir, "--format", "sft", "--target", "llamafactory", "--out", filepath.Join(lf, "sqlgym_sft.jsonl"))
		if !strings.Contains(report, `LLaMA-Factory dataset "sqlgym_sft"`) {
			t.Errorf("report does not name the dataset:\n%s", report)
		}
	}
	var info map[string]map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(lf, "dataset_info.json"))), &info); err != nil || len(info) != 2 || info["mine"]["formatting"] != "sharegpt" {
		t.Fatalf("dataset_info.json = %v (%v), want mine kept and sqlgym_sft added", info, err)
	}
	if info["sqlgym_sft"]["file_name"] != "sqlgym_sft.jsonl" {
		t.Errorf("entry = %v", info["sqlgym_sft"])
	}
	attr := consumers.LFDatasetAttr(info["sqlgym_sft"])
	lfLines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(lf, "sqlgym_sft.jsonl"))), "\n")
	raw := make([][]byte, len(lfLines))
	for i, l := range lfLines {
		raw[i] = []byte(l)
	}
	rows, err := consumers.LoadJSONLines(raw, false)
	if err != nil || len(rows) != 32 {
		t.Fatalf("datasets 4.0.0 read %d rows: %v", len(rows), err)
	}
	for i, row := range rows {
		if b, _ := json.Marshal(row); !jsonEqual(b, raw[i]) {
			t.Errorf("row %d changed by datasets 4.0.0:\n%s\n%s", i, b, raw[i])
		}
		if _, err := consumers.LlamaFactorySharegpt(attr, row); err != nil {
			t.Errorf("row %d: LLaMA-Factory skips it: %v", i, err)
		}
	}

	dpo := filepath.Join(dir, "dpo.jsonl")
	mustRun(t, "export", "--data-dir", dir, "--format", "dpo", "--out", dpo)
	checkLines(t, dpo, 0, func(line []byte) error { _, err := consumers.TRLDPO(line); return err })
	checkLlamaFactoryPairs(t, dir, lf, len(strings.Split(strings.TrimSpace(readFile(t, dpo)), "\n")))
	checkTemplateExports(t, dir)
}

// checkLlamaFactoryPairs exports the pairs of dir for llamafactory into
// lf (whose dataset_info.json has two entries): the entry added is a
// ranking one, and LLaMA-Factory's converter reads every row, after
// datasets 4.0.0's loading, as a pair; there are as many as for trl.
func checkLlamaFactoryPairs(t *testing.T, dir, lf string, want int) {
	out := filepath.Join(lf, "sqlgym_dpo.jsonl")
	mustRun(t, "export", "--data-dir", dir, "--format", "dpo", "--target", "llamafactory", "--out", out)
	var info map[string]map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(lf, "dataset_info.json"))), &info); err != nil || len(info) != 3 {
		t.Fatalf("dataset_info.json = %v (%v), want mine, sqlgym_sft and sqlgym_dpo", info, err)
	}
	attr := consumers.LFDatasetAttr(info["sqlgym_dpo"])
	if !attr.Ranking || info["sqlgym_dpo"]["file_name"] != "sqlgym_dpo.jsonl" {
		t.Errorf("entry = %v", info["sqlgym_dpo"])
	}
	var raw [][]byte
	for _, l := range strings.Split(strings.TrimSpace(readFile(t, out)), "\n") {
		raw = append(raw, []byte(l))
	}
	rows, err := consumers.LoadJSONLines(raw, false)
	if err != nil || len(rows) != want {
		t.Fatalf("datasets 4.0.0 read %d pairs, want %d: %v", len(rows), want, err)
	}
	for i, row := range rows {
		if b, _ := json.Marshal(row); !jsonEqual(b, raw[i]) {
			t.Errorf("pair %d changed by datasets 4.0.0:\n%s\n%s", i, b, raw[i])
		}
		if ex, err := consumers.LlamaFactorySharegpt(attr, row); err != nil || len(ex.Response) != 2 {
			t.Errorf("pair %d: LLaMA-Factory does not read it as a pair: %v", i, err)
		}
	}
}

// checkTemplateExports exports the episodes of dir with --template for
// each template of consumers.Templates: every sft row renders in that
// template (split calls, which every template takes), and every dpo pair
// keeps the prompt's rendering as the prefix of both completions' where
// the template allows it at all (see TestDPORendersInTheTemplates).
func checkTemplateExports(t *testing.T, dir string) {
	for _, tpl := range consumers.Templates() {
		args := "object"
		if tpl.Args == consumers.ArgsString {
			args = "string"
		}
		out := filepath.Join(dir, "tpl_"+tpl.Name+".jsonl")
		mustRun(t, "export", "--data-dir", dir, "--format", "sft", "--template", tpl.Name, "--split-calls", "--arguments", args, "--out", out)
		checkLines(t, out, 32, func(line []byte) error {
			c, err := consumers.TRLSFT(line)
			if err == nil {
				err = tpl.CheckChat(c.Messages, c.Tools)
			}
			return err
		})
		if tpl.ThinkPrompt != "" || tpl.FinalDropsAnalysis != "" {
			continue
		}
		out = filepath.Join(dir, "tpl_dpo_"+tpl.Name+".jsonl")
		mustRun(t, "export", "--data-dir", dir, "--format", "dpo", "--template", tpl.Name, "--split-calls", "--out", out)
		checkLines(t, out, 0, func(line []byte) error {
			c, err := consumers.TRLDPO(line)
			for _, side := range [][]map[string]any{c.Chosen, c.RejectedOnly} {
				if err == nil {
					err = tpl.CheckPair(c.Prompt, side, c.Kwargs)
				}
			}
			return err
		})
	}
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// checkLines loads each line of path with load (want lines, or any
// number above zero when want is 0) and checks it ends on an assistant
// turn.
func checkLines(t *testing.T, path string, want int, load func([]byte) error) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(readFile(t, path)), "\n")
	if want > 0 && len(lines) != want || len(lines) == 0 || lines[0] == "" {
		t.Fatalf("%s: %d lines, want %d", path, len(lines), want)
	}
	for i, line := range lines {
		if err := load([]byte(line)); err != nil {
			t.Errorf("%s line %d: %v\n%.400s", filepath.Base(path), i+1, err, line)
		}
		var ex struct {
			Messages, Chosen []map[string]any
		}
		json.Unmarshal([]byte(line), &ex)
		msgs := append(ex.Messages, ex.Chosen...)
		if last := msgs[len(msgs)-1]; last["role"] != "assistant" {
			t.Errorf("%s line %d ends on a %v turn: %v", filepath.Base(path), i+1, last["role"], last)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExportTargetErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--format", "sft", "--target", "axolotl"}, `unknown target "axolotl"`},
		{[]string{"--format", "sft", "--target", "openai", "--arguments", "object"}, "openai takes arguments as string only"},
		{[]string{"--format", "sft", "--target", "llamafactory", "--arguments", "string", "--out", "x"}, "llamafactory takes arguments as object only"},
		{[]string{"--format", "dpo", "--arguments", "yaml"}, `unknown arguments shape "yaml"`},
		{[]string{"--format", "sft", "--text-actions", "both"}, `unknown text action rendering "both"`},
		{[]string{"--format", "sft", "--target", "llamafactory"}, "needs --out"},
		{[]string{"--format", "dpo", "--target", "openai"}, "dpo writes TRL's or LLaMA-Factory's preference format"},
		{[]string{"--format", "dpo", "--target", "llamafactory"}, "needs --out"},
		{[]string{"--format", "dpo", "--target", "llamafactory", "--template", "qwen3", "--out", "x"}, "target llamafactory takes no template"},
		{[]string{"--format", "raw", "--target", "trl"}, "raw takes no target"},
		{[]string{"--format", "sft", "--template", "mistral"}, `unknown chat template "mistral"`},
		{[]string{"--format", "sft", "--reasoning-key", "reasoning"}, `unknown reasoning key "reasoning"`},
		{[]string{"--format", "dpo", "--template", "lfm2_2_5", "--reasoning-key", "reasoning_content"}, `template lfm2_2_5 reads reasoning under "thinking"`},
		{[]string{"--format", "sft", "--target", "openai", "--reasoning-key", "thinking"}, "target openai takes no template or reasoning key"},
	}
	for _, tt := range tests {
		_, stderr, err := sqlgym(t, append([]string{"export", "--data-dir", dir}, tt.args...)...)
		var usage usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error()+stderr, tt.want) {
			t.Errorf("%v: err %v, stderr %q; want a usage error saying %q", tt.args, err, stderr, tt.want)
		}
	}
	// A dataset_info.json that is not a JSON object is reported, not overwritten.
	serveAndDrive(t, []string{"--data-dir", dir}, playDemo(t, 4))
	os.WriteFile(filepath.Join(dir, "dataset_info.json"), []byte("[]"), 0o644)
	_, _, err := sqlgym(t, "export", "--data-dir", dir, "--format", "sft", "--target", "llamafactory", "--out", filepath.Join(dir, "x.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "dataset_info.json: not a JSON object") {
		t.Errorf("bad dataset_info.json: err = %v", err)
	}
	if readFile(t, filepath.Join(dir, "dataset_info.json")) != "[]" {
		t.Error("the bad dataset_info.json was overwritten")
	}
}
