package python_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallAsDocumented runs the README's install with every python3
// the machine has (the one on PATH, Debian's /usr/bin/python3): a plain
// `python3 -m venv` (no system site-packages, so no setuptools or wheel
// beyond what venv puts there), then `pip install` with and without
// --no-build-isolation, offline. Each installs both modules, and the
// build leaves nothing in the sources.
func TestInstallAsDocumented(t *testing.T) {
	for _, py := range pythons(t) {
		for _, flags := range [][]string{{"--no-build-isolation"}, nil} {
			name := py + " pip install " + strings.Join(append(flags, "."), " ")
			t.Run(name, func(t *testing.T) {
				vpy := install(t, py, flags...)
				cmd := exec.Command(vpy, "-c", "import sqlgym, sqlgym_client, sys; print(sqlgym.__version__, sys.version.split()[0])")
				cmd.Dir = t.TempDir() // away from the sources: the installed package is imported
				out, err := cmd.CombinedOutput()
				if err != nil || !strings.HasPrefix(string(out), "0.1.0 ") {
					t.Fatalf("import after install: %v\n%s", err, out)
				}
				src := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(vpy))), "src")
				for _, leftover := range []string{"build", "sqlgym.egg-info"} {
					if _, err := os.Stat(filepath.Join(src, leftover)); err == nil {
						t.Errorf("the build left %s in the sources", leftover)
					}
				}
				t.Logf("%s: installed with Python %s", py, strings.Fields(string(out))[1])
			})
		}
	}
}

// TestVenvIgnored: the .venv/ the README makes at the repository's root
// is ignored by git.
func TestVenvIgnored(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "check-ignore", "--no-index", ".venv/", ".venv/bin/python").CombinedOutput()
	if err != nil {
		t.Fatalf("git check-ignore .venv/: %v\n%s", err, out)
	}
}
