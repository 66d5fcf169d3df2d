package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestReplayFileLog records demo episodes into the log under --data-dir
// through the real server, and replays them all.
func TestReplayFileLog(t *testing.T) {
	dir := t.TempDir()
	serveAndDrive(t, []string{"--data-dir", dir}, playDemo(t, 16))
	out := mustRun(t, "replay", "--data-dir", dir)
	if !strings.Contains(out, "16 episodes: 16 reproduced, 0 diverged, 0 unverifiable") || !strings.Contains(out, "(100.0%)") {
		t.Errorf("replay printed:\n%s", out)
	}
	// Filters select; --all lists the reproduced episodes too.
	out = mustRun(t, "replay", "--data-dir", dir, "--all", "--tag", "policy=p2")
	if strings.Count(out, "reproduced   ep_") != 4 || !strings.Contains(out, "4 episodes: 4 reproduced") {
		t.Errorf("replay --tag policy=p2 --all printed:\n%s", out)
	}
}

// TestReplayPostgres records through serve --trajectories postgres://...
// and replays and exports from the store.
func TestReplayPostgres(t *testing.T) {
	url, _ := pgtest.URL(t)
	dir := t.TempDir()
	serveAndDrive(t, []string{"--data-dir", dir, "--trajectories", url}, playDemo(t, 12))
	if _, err := os.Stat(filepath.Join(dir, "trajectories")); err == nil {
		t.Error("serve --trajectories postgres:// also wrote the file log")
	}
	out := mustRun(t, "replay", "--data-dir", dir, "--trajectories", url, "--workers", "3")
	if !strings.Contains(out, "12 episodes: 12 reproduced") {
		t.Errorf("replay from postgres printed:\n%s", out)
	}
	sft := filepath.Join(dir, "sft.jsonl")
	out = mustRun(t, "export", "--trajectories", url, "--format", "sft", "--out", sft)
	if lines := jsonLines(t, sft); len(lines) != 12 || !strings.Contains(out, "kept 12 episodes; wrote 12 sft lines") {
		t.Errorf("export from postgres wrote %d lines; report:\n%s", len(lines), out)
	}
}

// TestReplayDiverged tampers with a recorded observation: replay names
// the step and fails.
func TestReplayDiverged(t *testing.T) {
	dir := t.TempDir()
	serveAndDrive(t, []string{"--data-dir", dir}, playDemo(t, 4))
	raw := filepath.Join(dir, "raw.jsonl")
	mustRun(t, "export", "--data-dir", dir, "--format", "raw", "--out", raw)
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	tampered := strings.Replace(string(b), "Submitted. Correct.", "Submitted. Correct!", 1)
	if tampered == string(b) {
		t.Fatal("no correct submission to tamper with")
	}
	bad := writeJSON(t, dir, "tampered.jsonl", tampered)
	out, _, err := sqlgym(t, "replay", "--data-dir", dir, "--trajectories", bad)
	if err == nil || !strings.Contains(err.Error(), "1 of 4 episodes diverged") {
		t.Errorf("replay of a tampered record: err %v, want 1 of 4 diverged", err)
	}
	if !strings.Contains(out, "observation") || !strings.Contains(out, `"Submitted. Correct!"`) {
		t.Errorf("replay did not show the differing observation:\n%s", out)
	}
}

func TestOfflineUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"export", "--data-dir", dir}, "--format must be one of sft, dpo, raw"},
		{[]string{"export", "--data-dir", dir, "--format", "sft", "--best-per-task", "-1"}, "--best-per-task"},
		{[]string{"rescore", "--data-dir", dir}, "--reward is required"},
		{[]string{"replay", "--data-dir", dir, "--tag", "nokey"}, "want KEY=VALUE"},
		{[]string{"replay", "--data-dir", dir, "--since", "yesterday"}, "--since"},
		{[]string{"replay", "--data-dir", dir, "--min-reward", "high"}, "want a number"},
		{[]string{"replay", "--data-dir", dir, "--workers", "0"}, "--workers"},
	}
	for _, tt := range tests {
		_, _, err := sqlgym(t, tt.args...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("sqlgym %v: %v (exit %d), want a usage error naming %q", tt.args, err, exitCode(err), tt.want)
		}
	}
	// No log under --data-dir: an error saying where it looked.
	_, _, err := sqlgym(t, "replay", "--data-dir", dir)
	if err == nil || !strings.Contains(err.Error(), "no trajectory log") {
		t.Errorf("replay without a log: %v", err)
	}
}

// TestReplayRejectsWhatIsNoLog gives replay a file that is no trajectory
// log (an SFT export): it says so, with no summary of nothing before it.
func TestReplayRejectsWhatIsNoLog(t *testing.T) {
	dir := t.TempDir()
	sft := writeJSON(t, dir, "sft.jsonl", `{"messages":[{"role":"user","content":"How many books?"}]}`+"\n")
	out, _, err := sqlgym(t, "replay", "--data-dir", dir, "--trajectories", sft)
	if err == nil || !strings.Contains(err.Error(), "not a trajectory record") {
		t.Errorf("replay of an SFT file: err %v, want it named as no trajectory record", err)
	}
	if strings.Contains(out, "steps reproduced") {
		t.Errorf("replay printed a summary before rejecting the file:\n%s", out)
	}
}

// TestReplayFailsWhenNothingCouldBeVerified replays episodes whose tasks
// the offline stack does not have: every one is unverifiable, which must
// fail loudly rather than pass as a replay.
func TestReplayFailsWhenNothingCouldBeVerified(t *testing.T) {
	dir := t.TempDir()
	serveAndDrive(t, []string{"--data-dir", dir}, playDemo(t, 3))
	raw := filepath.Join(dir, "raw.jsonl")
	mustRun(t, "export", "--data-dir", dir, "--format", "raw", "--out", raw)
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	moved := writeJSON(t, dir, "moved.jsonl", strings.ReplaceAll(string(b), `"task_id":"demo/`, `"task_id":"demo/gone-`))
	out, _, err := sqlgym(t, "replay", "--data-dir", dir, "--trajectories", moved)
	if err == nil || !strings.Contains(err.Error(), "NONE of the 3 episodes could be verified") || exitCode(err) != 1 {
		t.Errorf("replay with every episode unverifiable: err %v (exit %d), want a failure saying none was verified",
			err, exitCode(err))
	}
	if !strings.Contains(out, "3 episodes: 0 reproduced, 0 diverged, 3 unverifiable") {
		t.Errorf("replay printed:\n%s", out)
	}
}
