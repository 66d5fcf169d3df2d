package main

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// logFiles hashes every file of a log directory.
func logFiles(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][32]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

func sameFiles(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestLogVerifyDamaged verifies a damaged log: it names each damaged
// segment with its lines and episodes, passes the intact one, fails with
// the damage status and changes nothing.
func TestLogVerifyDamaged(t *testing.T) {
	d := newDamagedLog(t)
	logDir := filepath.Join(d.dir, "trajectories")
	before := logFiles(t, logDir)
	stdout, _, err := sqlgym(t, "log", "verify", "--data-dir", d.dir)
	if err == nil || exitCode(err) != exitDamaged {
		t.Errorf("log verify of a damaged log: %v (exit %d), want exit %d", err, exitCode(err), exitDamaged)
	}
	d.checkDamageReport(t, "log verify", stdout)
	if !regexp.MustCompile(`(?m)^ok +traj-000004\.log `).MatchString(stdout) {
		t.Errorf("log verify does not pass the intact segment:\n%s", stdout)
	}
	if !strings.Contains(stdout, "3 damaged segments") {
		t.Errorf("log verify summary:\n%s", stdout)
	}
	if !sameFiles(before, logFiles(t, logDir)) {
		t.Error("log verify changed the log")
	}
}

// TestLogVerifyClean verifies a log recorded through the real server.
func TestLogVerifyClean(t *testing.T) {
	dir := t.TempDir()
	recordSessions(t, dir, 3, 4)
	stdout := mustRun(t, "log", "verify", "--data-dir", dir)
	if n := len(regexp.MustCompile(`(?m)^ok +traj-00000[123]\.log `).FindAllString(stdout, -1)); n != 3 {
		t.Errorf("log verify passed %d of 3 segments:\n%s", n, stdout)
	}
	if !strings.Contains(stdout, "log verify: 3 segments") || !strings.Contains(stdout, "12 episodes") || !strings.Contains(stdout, "clean") {
		t.Errorf("log verify summary:\n%s", stdout)
	}
}

func TestLogUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"log"}, "verify"},
		{[]string{"log", "repair"}, `unknown log verb "repair"`},
		{[]string{"log", "verify", "extra"}, `unexpected argument "extra"`},
	} {
		_, _, err := sqlgym(t, tt.args...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("sqlgym %v: %v (exit %d), want a usage error naming %q", tt.args, err, exitCode(err), tt.want)
		}
	}
	_, _, err := sqlgym(t, "log", "verify", "--data-dir", dir)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "no trajectory log") {
		t.Errorf("log verify without a log: %v", err)
	}
}
