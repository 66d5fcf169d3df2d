package needs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A skip is noted in $SQLGYM_SKIPS with the test's name and why.
func TestMissingNotesTheSkip(t *testing.T) {
	skips := filepath.Join(t.TempDir(), "skips")
	t.Setenv(SkipsEnv, skips)
	t.Setenv("CI", "")
	t.Run("inner", func(t *testing.T) { Missing(t, "no frobnicator: run scripts/frob-up") })
	got, err := os.ReadFile(skips)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "skipped\t") || !strings.Contains(string(got), "TestMissingNotesTheSkip/inner: no frobnicator: run scripts/frob-up\n") {
		t.Errorf("noted %q", got)
	}
}

// scripts/test-summary ends scripts/test: a run with skips says so last,
// plainly, and fails under CI=true; a run without passes quietly.
func TestScriptSummary(t *testing.T) {
	skips := filepath.Join(t.TempDir(), "skips")
	notes := "prerequisite\tno chromium (the console's browser tests): E: Could not get lock /var/lib/dpkg/lock-frontend\n" +
		"skipped\t/repo/internal/app/console TestBrowserLogin: /usr/bin/chromium is missing\n"
	if err := os.WriteFile(skips, []byte(notes), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ci     string
		rc     string
		status int
		want   string
	}{
		{"", "0", 0, "install what is missing and run again"},
		{"true", "0", 1, "CI=true: nothing may be missing or skip, so this run FAILS"},
		{"", "2", 2, "install what is missing"},
	} {
		out, status := summary(t, skips, tc.rc, tc.ci)
		if status != tc.status {
			t.Errorf("CI=%q rc=%s: exit %d, want %d\n%s", tc.ci, tc.rc, status, tc.status, out)
		}
		for _, want := range []string{"NOT EVERYTHING WAS TESTED: 1 prerequisite(s) missing, 1 test(s) skipped",
			"missing: no chromium (the console's browser tests): E: Could not get lock",
			"skipped: /repo/internal/app/console TestBrowserLogin: /usr/bin/chromium is missing", tc.want} {
			if !strings.Contains(out, want) {
				t.Errorf("CI=%q: the summary lacks %q:\n%s", tc.ci, want, out)
			}
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if !strings.HasPrefix(lines[len(lines)-1], "=====") {
			t.Errorf("the summary is not the last thing printed:\n%s", out)
		}
	}
	empty := filepath.Join(t.TempDir(), "none")
	os.WriteFile(empty, nil, 0o644)
	if out, status := summary(t, empty, "0", "true"); status != 0 || out != "" {
		t.Errorf("nothing skipped: exit %d, printed %q; want 0 and nothing", status, out)
	}
}

// summary runs scripts/test-summary and returns what it printed and its
// exit status.
func summary(t *testing.T, skips, rc, ci string) (string, int) {
	t.Helper()
	cmd := exec.Command("../../../scripts/test-summary", skips, rc)
	cmd.Env = append(os.Environ(), "CI="+ci)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return string(out), 0
}
