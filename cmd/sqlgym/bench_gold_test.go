package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/bench"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/schemas"
)

// readReport reads a bench --out file.
func readReport(t *testing.T, path string) *bench.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%s holds no report: %v\n%s", path, err, b)
	}
	return &rep
}

// TestBenchSmokeSpiderDev is CI's smoke run of the measuring bench: the
// gold script on Spider-dev, in process, with --baseline and --rate, for
// a couple of seconds. It asserts no timing: only that the report has the
// ratio to the baseline, the CPU per step and the memory filled in.
func TestBenchSmokeSpiderDev(t *testing.T) {
	dir := spiderdev.Dir(t)
	out := filepath.Join(t.TempDir(), "bench.json")
	var stdout, stderr strings.Builder
	args := []string{"bench", "--dataset", "spider:" + dir, "--script", "gold", "--baseline", "--baseline-duration", "1s",
		"--rate", "1000", "--duration", "2s", "--sockets", "2", "--episodes-per-socket", "16", "--out", out}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("bench: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	rep := readReport(t, out)
	if rep.Script != bench.ScriptGold || rep.Dataset != "spider-dev" || rep.Ended == 0 || rep.Outcomes[schemas.OutcomeCorrect] != rep.Ended {
		t.Errorf("script %s on %s: %d ended, outcomes %v; want gold on spider-dev, every episode correct", rep.Script, rep.Dataset, rep.Ended, rep.Outcomes)
	}
	if b := rep.Baseline; b == nil || b.Statements == 0 || b.PerS <= 0 || b.Errors != 0 || b.CPUPerStatementUS <= 0 || rep.Ratio <= 0 {
		t.Errorf("baseline %+v, ratio %v; want statements run, none failed, their CPU, and a ratio", b, rep.Ratio)
	}
	if rep.CPUBeyondStatementUS == 0 {
		t.Error("the report has no CPU per step beyond the statement's own")
	}
	if p := rep.Pacing; p == nil || p.OfferedPerS != 1000 || p.Sent == 0 || p.Sent > p.Offered {
		t.Errorf("pacing %+v; want 1000/s offered, some sent, no more than offered", p)
	}
	if p := rep.Process; p.Error != "" || p.CPUPerStepUS <= 0 || p.RSSPeak <= 0 || p.RSSEnd <= 0 || !p.IncludesClient {
		t.Errorf("server process %+v; want CPU per step and RSS read, the client's CPU said to be included", p)
	}
	for _, want := range []string{"baseline ", "ratio of SQL steps/s to it", "pacing    offered 1000.0 steps/s", "us/step (", "rss peak"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout.String())
		}
	}
}

// TestBenchURLGold benchmarks a server in its own stack by --url with the
// gold script and the baseline: --dataset is the spec the server serves,
// loaded on the bench's side; a dataset that is not the server's, though
// named as the server's, fails before any episode.
func TestBenchURLGold(t *testing.T) {
	dir := spiderdev.Dir(t)
	spec := "spider:" + dir
	ctx := context.Background()
	withServer(t, []string{"--data-dir", t.TempDir(), "--dataset", spec}, func(url string) {
		out := filepath.Join(t.TempDir(), "bench.json")
		var stdout strings.Builder
		args := []string{"bench", "--url", url, "--dataset", spec, "--script", "gold", "--gold-repeats", "2", "--baseline",
			"--baseline-statements", "3000", "--episodes", "120", "--sockets", "2", "--episodes-per-socket", "8", "--out", out}
		if err := run(ctx, args, &stdout, &stdout); err != nil {
			t.Fatalf("bench --url: %v\n%s", err, stdout.String())
		}
		rep := readReport(t, out)
		if rep.Ended != 120 || rep.Outcomes[schemas.OutcomeCorrect] != 120 || rep.SQLSteps != 360 {
			t.Errorf("ended %d, outcomes %v, %d SQL steps; want 120 correct, 360", rep.Ended, rep.Outcomes, rep.SQLSteps)
		}
		if rep.Baseline == nil || rep.Baseline.Statements+rep.Baseline.Errors != 3000 || rep.Ratio <= 0 {
			t.Errorf("baseline %+v, ratio %v; want 3000 statements and a ratio", rep.Baseline, rep.Ratio)
		}
		if p := rep.Process; p.Error != "" || p.IncludesClient || p.Steps != 360 || p.RSSEnd <= 0 {
			t.Errorf("server process %+v; want the server's own, over its 360 steps", p)
		}
	})
	withServer(t, []string{"--data-dir", t.TempDir()}, func(url string) { // the demo
		var stdout strings.Builder
		args := []string{"bench", "--url", url, "--dataset", "demo=" + spec, "--script", "gold", "--episodes", "5"}
		err := run(ctx, args, &stdout, &stdout)
		if err == nil || !strings.Contains(err.Error(), `not the one the server serves as "demo"`) || strings.Contains(stdout.String(), "episodes") {
			t.Errorf("bench --url with another dataset under the served name: %v\n%s", err, stdout.String())
		}
	})
}

// TestBenchExcludeTag records bench episodes and training episodes in
// one log: --exclude-tag bench=true leaves out exactly the bench's from
// export, replay and rescore.
func TestBenchExcludeTag(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "bench", "--data-dir", dir, "--script", "gold", "--episodes", "20", "--sockets", "1", "--episodes-per-socket", "4")
	serveAndDrive(t, []string{"--data-dir", dir}, playDemo(t, 16))
	all, kept := filepath.Join(dir, "all.jsonl"), filepath.Join(dir, "kept.jsonl")
	mustRun(t, "export", "--data-dir", dir, "--format", "raw", "--out", all)
	mustRun(t, "export", "--data-dir", dir, "--format", "raw", "--exclude-tag", "bench=true", "--out", kept)
	training := map[string]bool{}
	for _, rec := range jsonLines(t, all) {
		if tags, _ := rec["tags"].(map[string]any); tags[bench.TagKey] != true {
			training[rec["episode_id"].(string)] = true
		}
	}
	keptRecs := jsonLines(t, kept)
	if len(training) != 16 || len(keptRecs) != 16 {
		t.Fatalf("%d training episodes recorded, %d kept; want 16 and 16", len(training), len(keptRecs))
	}
	for _, rec := range keptRecs {
		if !training[rec["episode_id"].(string)] {
			t.Errorf("export --exclude-tag kept %v, a bench episode", rec["episode_id"])
		}
	}
	if n := len(jsonLines(t, all)); n != 36 {
		t.Errorf("without the filter, %d episodes exported, want 36", n)
	}
	// The same holds for the other readers, and with the tag as a string.
	out := mustRun(t, "replay", "--data-dir", dir, "--exclude-tag", "bench=true")
	if !strings.Contains(out, "16 episodes: 16 reproduced") {
		t.Errorf("replay --exclude-tag bench=true printed:\n%s", out)
	}
	spec := writeJSON(t, dir, "double.json", `{"final": {"correct": 2}}`)
	out = mustRun(t, "rescore", "--data-dir", dir, "--reward", spec, "--exclude-tag", "source=sqlgym bench")
	if !strings.Contains(out, "rescored 16 episodes") {
		t.Errorf("rescore --exclude-tag source=sqlgym bench printed:\n%s", out)
	}
	out = mustRun(t, "replay", "--data-dir", dir, "--tag", "bench=true", "--exclude-tag", "script=gold")
	if !strings.Contains(out, "0 episodes") {
		t.Errorf("replay of bench episodes but the gold script's printed:\n%s", out)
	}
}
