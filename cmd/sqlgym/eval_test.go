package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/reward/evaluate"
)

// evalGoldLines are Spider-dev's golds as a predictions file would hold
// them: "SQL<TAB>db_id", whitespace folded onto one line.
func evalGoldLines(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct{ Query, DBID string }
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatal(err)
	}
	lines := make([]string, len(recs))
	for i, r := range recs {
		lines[i] = strings.Join(strings.Fields(r.Query), " ") + "\t" + r.DBID
	}
	return lines
}

// evalWrite writes a file into a temporary folder and returns its path.
func evalWrite(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// evalCmd runs sqlgym with args and returns what it printed.
func evalCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// evalRecords reads an --out file.
func evalRecords(t *testing.T, path string) []evaluate.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := evaluate.ReadRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestEvalSpiderDevGold(t *testing.T) {
	dir := spiderdev.Dir(t)
	preds := evalWrite(t, "gold.sql", strings.Join(evalGoldLines(t, dir), "\n")+"\n")
	for _, mode := range []string{"bird", "spider", "tolerant"} {
		out := filepath.Join(t.TempDir(), "verdicts.jsonl")
		stdout, stderr, err := evalCmd(t, "eval", "--dataset", "spider:"+dir, "--predictions", preds, "--match", mode, "--out", out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, stderr)
		}
		if !strings.Contains(stdout, "\nEX 1.000 (972/972)\n") || !strings.Contains(stdout, "match "+mode) {
			t.Errorf("%s: stdout lacks EX 1.000 (972/972) and the mode:\n%s", mode, stdout)
		}
		if strings.TrimSpace(progressLine.ReplaceAllString(stderr, "")) != "" {
			t.Errorf("%s: stderr holds more than progress lines off a terminal: %q", mode, stderr)
		}
		recs := evalRecords(t, out)
		if len(recs) != 972 {
			t.Fatalf("%s: %d verdicts, want 972", mode, len(recs))
		}
		for i, r := range recs {
			if r.Index != i || !r.Correct {
				t.Errorf("%s: verdict %d: %+v", mode, i, r)
			}
		}
	}
}

// TestEvalSpiderDevWrong breaks a few lines of the gold file; exactly
// those are wrong, each with its outcome, in every mode.
func TestEvalSpiderDevWrong(t *testing.T) {
	dir := spiderdev.Dir(t)
	lines := evalGoldLines(t, dir)
	wrong := map[int]string{
		0:   "mismatch",   // SELECT count(*) + 1 FROM singer
		3:   "mismatch",   // a constant
		100: "pred_error", // an empty line
		500: "pred_error", // a table that is not there
		971: "mismatch",   // the last line, a constant with its db_id
	}
	lines[0] = "SELECT count(*) + 1 FROM singer\tconcert_singer"
	lines[3] = "SELECT 1"
	lines[100] = ""
	lines[500] = "SELECT * FROM no_such_table"
	lines[971] = "SELECT 'x'\t" + strings.Split(lines[971], "\t")[1]
	preds := evalWrite(t, "pred.sql", strings.Join(lines, "\n")+"\n")
	for _, mode := range []string{"bird", "spider", "tolerant"} {
		out := filepath.Join(t.TempDir(), "verdicts.jsonl")
		stdout, _, err := evalCmd(t, "eval", "--dataset", "spider:"+dir, "--predictions", preds, "--match", mode, "--out", out, "--workers", "3")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout, "EX 0.995 (967/972)") {
			t.Errorf("%s: want EX 0.995 (967/972) in:\n%s", mode, stdout)
		}
		for i, r := range evalRecords(t, out) {
			want, isWrong := wrong[i]
			if !isWrong {
				want = "correct"
			}
			if r.Outcome != want {
				t.Errorf("%s: line %d: %s, want %s", mode, i+1, r.Outcome, want)
			}
		}
	}
}

// evalBirdDir builds a BIRD-layout dataset of four tasks over two
// databases in a temporary folder.
func evalBirdDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	dbs := map[string]string{
		"shop": `CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);
			INSERT INTO item VALUES (1, 'pen', 1.5), (2, 'ink', 3.0), (3, 'pad', 2.0);`,
		"zoo": `CREATE TABLE animal(id INTEGER PRIMARY KEY, name TEXT, legs INTEGER);
			INSERT INTO animal VALUES (1, 'cat', 4), (2, 'hen', 2), (3, 'eel', 0), (4, 'dog', 4);`,
	}
	for id, script := range dbs {
		path := filepath.Join(dir, "dev_databases", id, id+".sqlite")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := sqlite.Build(context.Background(), path, script); err != nil {
			t.Fatal(err)
		}
	}
	dev := `[
 {"question_id": 0, "db_id": "shop", "question": "How many items?", "evidence": "", "SQL": "SELECT count(*) FROM item", "difficulty": "simple"},
 {"question_id": 1, "db_id": "shop", "question": "Which items cost over 1.8?", "evidence": "", "SQL": "SELECT name FROM item WHERE price > 1.8", "difficulty": "moderate"},
 {"question_id": 2, "db_id": "zoo", "question": "Names and legs by legs?", "evidence": "", "SQL": "SELECT name, legs FROM animal ORDER BY legs", "difficulty": "challenging"},
 {"question_id": 3, "db_id": "zoo", "question": "How many animals have four legs?", "evidence": "", "SQL": "SELECT count(*) FROM animal WHERE legs = 4", "difficulty": "simple"}
]`
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), []byte(dev), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// evalBirdPreds is a BIRD predict_dev.json for evalBirdDir, keys out of
// order: 0 and 1 right, 2 with its columns swapped, 3 wrong.
const evalBirdPreds = `{
 "2": "SELECT legs, name FROM animal ORDER BY legs\t----- bird -----\tzoo",
 "0": "SELECT count(*) FROM item\t----- bird -----\tshop",
 "3": "SELECT count(*) FROM animal\t----- bird -----\tzoo",
 "1": "SELECT name FROM item WHERE price > 1.8\t----- bird -----\tshop"
}`

func TestEvalBird(t *testing.T) {
	dataset := "bird-mini=bird:" + evalBirdDir(t)
	preds := evalWrite(t, "predict_dev.json", evalBirdPreds)
	tests := []struct {
		match, ex, difficulty string
	}{
		{"bird", "EX 0.500 (2/4)", "challenging  0.000  0        1"},
		{"spider", "EX 0.750 (3/4)", "challenging  1.000  1        1"},
	}
	for _, tt := range tests {
		stdout, _, err := evalCmd(t, "eval", "--dataset", dataset, "--predictions", preds, "--match", tt.match)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"bird-mini: 4 predictions, match " + tt.match, tt.ex,
			"difficulty   EX     correct  total\nsimple", tt.difficulty,
			"database  EX", "shop      1.000  2        2",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: stdout lacks %q:\n%s", tt.match, want, stdout)
			}
		}
	}
}

func TestEvalOut(t *testing.T) {
	dataset := "bird-mini=bird:" + evalBirdDir(t)
	preds := evalWrite(t, "pred.sql", "SELECT count(*) FROM item\tshop\n\nSELECT nope FROM animal\nSELECT count(*) FROM animal\tzoo\n")
	out := filepath.Join(t.TempDir(), "v.jsonl")
	if _, _, err := evalCmd(t, "eval", "--dataset", dataset, "--predictions", preds, "--out", out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	want := []map[string]any{
		{"index": 0.0, "pos": "line 1", "task_id": "bird-mini/0", "db_id": "shop", "difficulty": "simple", "outcome": "correct", "correct": true, "reward": 1.0},
		{"index": 1.0, "pos": "line 2", "task_id": "bird-mini/1", "db_id": "shop", "difficulty": "moderate", "outcome": "pred_error", "correct": false, "reward": -0.1,
			"error": "empty statement: send one SQL statement"},
		{"index": 2.0, "pos": "line 3", "task_id": "bird-mini/2", "db_id": "zoo", "difficulty": "challenging", "outcome": "pred_error", "correct": false, "reward": -0.1,
			"error": "no such column: nope"},
		{"index": 3.0, "pos": "line 4", "task_id": "bird-mini/3", "db_id": "zoo", "difficulty": "simple", "outcome": "mismatch", "correct": false, "reward": 0.1},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), data)
	}
	for i, line := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		for _, timing := range []string{"pred_ms", "gold_ms"} {
			ms, ok := got[timing].(float64)
			if !ok || ms < 0 || (timing == "gold_ms" && ms == 0) || (timing == "pred_ms" && (ms == 0) != (want[i]["outcome"] == "pred_error")) {
				t.Errorf("line %d: %s = %v", i+1, timing, got[timing])
			}
			delete(got, timing)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("line %d:\n got %v\nwant %v", i+1, got, want[i])
		}
	}
}

func TestEvalReward(t *testing.T) {
	dataset := "bird-mini=bird:" + evalBirdDir(t)
	preds := evalWrite(t, "predict_dev.json", evalBirdPreds)
	spec := evalWrite(t, "spec.json", `{"match": "spider", "final": {"correct": 2}}`)
	tests := []struct {
		args []string
		ex   string
		mean string
	}{
		{nil, "EX 0.500 (2/4)", "mean final reward         0.5500"},
		{[]string{"--reward", spec}, "EX 0.750 (3/4)", "mean final reward         1.5250"},
		{[]string{"--reward", spec, "--match", "BIRD"}, "EX 0.500 (2/4)", "mean final reward         1.0500"},
	}
	for _, tt := range tests {
		args := append([]string{"eval", "--dataset", dataset, "--predictions", preds}, tt.args...)
		stdout, _, err := evalCmd(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout, tt.ex) || !strings.Contains(stdout, tt.mean) {
			t.Errorf("%v: want %q and %q in:\n%s", tt.args, tt.ex, tt.mean, stdout)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	dataset := "bird-mini=bird:" + evalBirdDir(t)
	spiderPreds := func(data string) string { return evalWrite(t, "pred.sql", data) }
	tests := []struct {
		name     string
		args     []string
		want     string
		exitCode int
	}{
		{"no predictions", []string{"--dataset", dataset}, "--dataset and --predictions are required", 2},
		{"bad match", []string{"--dataset", dataset, "--predictions", spiderPreds("a\nb\nc\nd\n"), "--match", "fuzzy"},
			`--match: reward.match: unknown match mode "fuzzy"`, 2},
		{"bad dataset", []string{"--dataset", "csv:x", "--predictions", spiderPreds("a\n")}, `unknown format "csv"`, 2},
		{"bad workers", []string{"--dataset", dataset, "--predictions", spiderPreds("a\n"), "--workers", "0"}, "--workers must be at least 1", 2},
		{"too few lines", []string{"--dataset", dataset, "--predictions", spiderPreds("SELECT 1\nSELECT 2\nSELECT 3\n")},
			"3 predictions for 4 tasks of bird-mini", 1},
		{"too many keys", []string{"--dataset", dataset, "--predictions", evalWrite(t, "p.json", `{"0":"a","1":"b","2":"c","3":"d","4":"e"}`)},
			"more than 4 keys, but bird-mini has 4 tasks", 1},
		{"too many lines", []string{"--dataset", dataset, "--predictions", spiderPreds(strings.Repeat("SELECT 1\n", 1000))},
			"more than 4 lines, but bird-mini has 4 tasks", 1},
		{"line too long", []string{"--dataset", dataset, "--predictions", spiderPreds("SELECT 1\nSELECT '" + strings.Repeat("x", 300) + "'\n"),
			"--max-line-bytes", "256"}, "line 2: longer than 256 bytes (--max-line-bytes)", 1},
		{"default bound", []string{"--dataset", dataset, "--predictions", spiderPreds(strings.Repeat("x", evaluate.DefaultMaxLineBytes+1))},
			"line 1: longer than 1048576 bytes (--max-line-bytes)", 1},
		{"bird value too long", []string{"--dataset", dataset, "--predictions", evalWrite(t, "p.json", `{"0":"`+strings.Repeat("x", 300)+`"}`),
			"--max-line-bytes", "256"}, `the value of key "0": longer than 256 bytes`, 1},
		{"bad max-line-bytes", []string{"--dataset", dataset, "--predictions", spiderPreds("a\n"), "--max-line-bytes", "0"},
			"--max-line-bytes must be at least 1", 2},
		{"db_id mismatch", []string{"--dataset", dataset, "--predictions", spiderPreds("SELECT 1\tshop\nSELECT 2\nSELECT 3\tshop\nSELECT 4\n")},
			`line 3: db_id "shop", but task bird-mini/2 (index 2) is on "zoo"`, 1},
		{"bird db_id mismatch", []string{"--dataset", dataset, "--predictions",
			evalWrite(t, "p.json", `{"0":"a\t----- bird -----\tzoo","1":"b","2":"c","3":"d"}`)},
			`key "0": db_id "zoo", but task bird-mini/0 (index 0) is on "shop"`, 1},
		{"bad key", []string{"--dataset", dataset, "--predictions", evalWrite(t, "p.json", `{"0":"a","x":"b"}`)},
			`key "x": want a task index`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := evalCmd(t, append([]string{"eval"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
			if got := exitCode(err); got != tt.exitCode {
				t.Errorf("exit code %d, want %d", got, tt.exitCode)
			}
		})
	}
}
