package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deprecation is the line a deprecated flag name prints.
func deprecation(cmd, old, name string) string {
	return fmt.Sprintf("sqlgym %s: --%s is deprecated; use --%s\n", cmd, old, name)
}

// TestRenamedFlagsKeepTheirOldNames gives each renamed flag a bad value
// under its new name and under its old one: both reach the same check,
// and only the old name prints the deprecation line, once.
func TestRenamedFlagsKeepTheirOldNames(t *testing.T) {
	rollout := []string{"rollout", "--model-url", "http://127.0.0.1:1/v1", "--model", "m"}
	for _, tt := range []struct {
		cmd       string
		args      []string // before the renamed flag
		old, name string
		value     string
		want      string // in the error
	}{
		{"rollout", rollout, "concurrency", "workers", "0", "--samples and --workers must be at least 1"},
		{"import", []string{"import", "--dataset", "spider:x", "--out", "x"}, "dsn", "engine", "host=127.0.0.1", "--engine: want a postgres:// URL"},
	} {
		for _, name := range []string{tt.name, tt.old} {
			args := append(slices.Clone(tt.args), "--"+name, tt.value, "--"+name, tt.value)
			_, stderr, err := sqlgym(t, args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("sqlgym %v: %v, want an error with %q", args, err, tt.want)
			}
			want := ""
			if name == tt.old {
				want = deprecation(tt.cmd, tt.old, tt.name)
			}
			if stderr != want {
				t.Errorf("sqlgym %v printed %q, want %q", args, stderr, want)
			}
		}
		_, help, _ := sqlgym(t, tt.cmd, "-h")
		if !strings.Contains(help, "\n  --"+tt.name+" ") || strings.Contains(help, "--"+tt.old+" ") {
			t.Errorf("%s -h: want --%s listed and --%s hidden:\n%s", tt.cmd, tt.name, tt.old, help)
		}
	}
}

// TestDeprecatedEnvironmentVariable sets a flag by its old variable:
// the value is taken, and the line names the new variable.
func TestDeprecatedEnvironmentVariable(t *testing.T) {
	t.Setenv("SQLGYM_CONCURRENCY", "0")
	_, stderr, err := sqlgym(t, "rollout", "--model-url", "http://127.0.0.1:1/v1", "--model", "m")
	if err == nil || !strings.Contains(err.Error(), "--workers must be at least 1") {
		t.Errorf("SQLGYM_CONCURRENCY=0: %v, want --workers's check", err)
	}
	if want := "sqlgym rollout: SQLGYM_CONCURRENCY is deprecated; use SQLGYM_WORKERS\n"; stderr != want {
		t.Errorf("printed %q, want %q", stderr, want)
	}
	t.Setenv("SQLGYM_WORKERS", "2") // the new variable wins, silently
	_, stderr, err = sqlgym(t, "rollout", "--model-url", "http://127.0.0.1:1/v1", "--model", "m", "--samples", "0")
	if err == nil || stderr != "" {
		t.Errorf("both variables: %v, printed %q", err, stderr)
	}
}

// TestTasksAndRunSelectEpisodes reads a recorded log with the selection
// flags every reading command shares: --tasks takes several tasks (its
// old name --task one, with the deprecation line), and --run is --tag
// run=NAME.
func TestTasksAndRunSelectEpisodes(t *testing.T) {
	dir := t.TempDir()
	recordSessions(t, dir, 1, 12) // three demo tasks, four episodes each
	tasks := demoTasks(t)
	raw := func(args ...string) ([]string, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "raw.jsonl")
		_, stderr, err := sqlgym(t, append([]string{"export", "--data-dir", dir, "--format", "raw", "--out", out}, args...)...)
		if err != nil {
			t.Fatalf("export %v: %v\n%s", args, err, stderr)
		}
		var ids []string
		for _, r := range jsonLines(t, out) {
			ids = append(ids, r["task"].(map[string]any)["task_id"].(string))
		}
		return ids, stderr
	}
	two := tasks[0].ID + "," + tasks[2].ID
	if ids, stderr := raw("--tasks", two); len(ids) != 8 || slices.Contains(ids, tasks[1].ID) || strings.Contains(stderr, "deprecated") {
		t.Errorf("--tasks %s: %v, printed %q", two, ids, stderr)
	}
	if ids, _ := raw("--tasks", tasks[1].ID); len(ids) != 4 || ids[0] != tasks[1].ID {
		t.Errorf("--tasks %s: %v", tasks[1].ID, ids)
	}
	ids, stderr := raw("--task", tasks[1].ID)
	if len(ids) != 4 || ids[0] != tasks[1].ID || !strings.HasPrefix(stderr, deprecation("export", "task", "tasks")) {
		t.Errorf("--task %s: %v, printed %q", tasks[1].ID, ids, stderr)
	}
	// The demo episodes carry no run tag: --run selects none of them.
	if ids, _ := raw("--run", "nothing"); len(ids) != 0 {
		t.Errorf("--run nothing: %d episodes, want none", len(ids))
	}
}

// TestReportReportsDamage reports on a damaged log: the damage is
// reported, and the command exits with the damage status unless
// --allow-damage accepts it.
func TestReportReportsDamage(t *testing.T) {
	d := newDamagedLog(t)
	_, stderr, err := sqlgym(t, "report", "--data-dir", d.dir)
	if exitCode(err) != exitDamaged {
		t.Errorf("report of a damaged log: %v (exit %d), want exit %d", err, exitCode(err), exitDamaged)
	}
	d.checkDamageReport(t, "report", stderr)
	_, stderr, err = sqlgym(t, "report", "--data-dir", d.dir, "--allow-damage")
	if err != nil {
		t.Errorf("report --allow-damage: %v", err)
	}
	d.checkDamageReport(t, "report --allow-damage", stderr)
}

// TestRolloutReportsDamage runs a rollout on a damaged log, which it
// reads for resume and for its report.
func TestRolloutReportsDamage(t *testing.T) {
	d := newDamagedLog(t)
	args := []string{"rollout", "--model-url", submitOne(t), "--model", "m", "--limit", "1", "--data-dir", d.dir,
		"--out", filepath.Join(t.TempDir(), "out"), "--run", "r1"}
	_, stderr, err := sqlgym(t, args...)
	if exitCode(err) != exitDamaged {
		t.Errorf("rollout on a damaged log: %v (exit %d), want exit %d", err, exitCode(err), exitDamaged)
	}
	d.checkDamageReport(t, "rollout", stderr)
	args[len(args)-1] = "r2"
	if _, stderr, err = sqlgym(t, append(args, "--allow-damage")...); err != nil {
		t.Errorf("rollout --allow-damage: %v\n%s", err, stderr)
	}
}

// TestVersionFlag checks sqlgym --version.
func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		stdout, _, err := sqlgym(t, arg)
		if err != nil || stdout != versionLine()+"\n" || !strings.HasPrefix(stdout, "sqlgym "+version+" (commit ") {
			t.Errorf("sqlgym %s: %q, %v", arg, stdout, err)
		}
	}
}

// TestHelpHeadings checks that every -h lists its flags with two dashes,
// the deprecated names left out; that serve's and repl's flags all fall
// under a heading; and that repl --url -h leaves out the in-process
// server's flags, saying so.
func TestHelpHeadings(t *testing.T) {
	for _, c := range commands() {
		args := []string{c.name, "-h"}
		if c.name == "log" {
			args = []string{"log", "verify", "-h"}
		}
		if c.name == "version" {
			continue
		}
		_, help, _ := sqlgym(t, args...)
		for _, line := range strings.Split(help, "\n") {
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
				t.Errorf("%s -h: %q has one dash", c.name, line)
			}
			if strings.HasPrefix(line, "  --") && strings.Contains(line, "deprecated") {
				t.Errorf("%s -h lists a deprecated name: %q", c.name, line)
			}
		}
	}
	_, serve, err := sqlgym(t, "serve", "-h")
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("serve -h: %v", err)
	}
	for _, h := range []string{"Listening", "Datasets", "Engines", "Episodes", "Tools", "Limits", "Trajectories", "Logging"} {
		if !strings.Contains(serve, "\n\n"+h+":\n  --") {
			t.Errorf("serve -h has no heading %q:\n%s", h, serve)
		}
	}
	_, repl, _ := sqlgym(t, "repl", "-h")
	for name, help := range map[string]string{"serve": serve, "repl": repl} {
		if strings.Contains(help, "\nOther:\n") {
			t.Errorf("%s -h has flags under no heading:\n%s", name, help[strings.Index(help, "\nOther:\n"):])
		}
	}
	if !strings.Contains(repl, "\n\nEpisodes (in-process server; ignored with --url):\n") || !strings.Contains(repl, "\n  --max-turns int\n") {
		t.Errorf("repl -h:\n%s", repl)
	}
	_, remote, _ := sqlgym(t, "repl", "--url", "ws://127.0.0.1:1/v1/ws", "-h")
	if strings.Contains(remote, "--max-turns") || strings.Contains(remote, "in-process server;") ||
		!strings.Contains(remote, "with --url the in-process server's flags do not apply") || !strings.Contains(remote, "\n  --token string\n") {
		t.Errorf("repl --url -h:\n%s", remote)
	}
}
