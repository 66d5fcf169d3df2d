// Package pyvenv installs the Python package examples/python the way its
// README says, for the tests that run it: a python3 that can install it
// offline (venv and ensurepip; without one a test skips, and under
// CI=true fails), `python3 -m venv`, then `pip install` from a copy of
// the sources with no package index. examples/python's own tests and
// internal/suites/failovertest install through it.
package pyvenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/needs"
)

// buildModules are what installing the package offline needs of an
// interpreter: venv, with ensurepip to put pip in the environment. The
// build itself needs nothing more (_backend/sqlgym_backend.py is standard
// library only): no setuptools, no wheel. The check prints the
// interpreter's own path, which Pythons uses in place of a launcher's.
const buildModules = "import venv, ensurepip, sys; print(sys.executable)"

// debianPackages provide buildModules for Debian's python3.
const debianPackages = "python3 python3-venv"

// PackageFiles are the package's sources, relative to examples/python:
// what pip install builds from.
var PackageFiles = []string{"pyproject.toml", "README.md", "sqlgym_client.py", "sqlgym/*.py", "_backend/*.py"}

// Pythons finds every interpreter that can install the package offline
// among python3 on PATH and Debian's /usr/bin/python3, each named by the
// path it runs as (sys.executable): a launcher such as pyenv's shim is
// the interpreter it starts, without the launcher's cost on every run,
// and two candidates that are one interpreter count once. Without one
// the test skips, except in CI, where it fails.
func Pythons(t testing.TB) []string {
	t.Helper()
	var found, tried []string
	seen := map[string]bool{}
	candidates := []string{"/usr/bin/python3"}
	if py, err := exec.LookPath("python3"); err == nil {
		candidates = append([]string{py}, candidates...)
	}
	for _, py := range candidates {
		out, err := exec.Command(py, "-c", buildModules).Output()
		if err != nil {
			tried = append(tried, py+": "+strings.TrimSpace(lastLine(string(out)+stderrOf(err), err)))
			continue
		}
		exe := strings.TrimSpace(string(out))
		real, err := filepath.EvalSymlinks(exe)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		found = append(found, exe)
	}
	if len(found) > 0 {
		return found
	}
	msg := "no python3 that can install the package offline (needs venv and ensurepip; Debian: apt-get install " +
		debianPackages + "): " + strings.Join(tried, "; ")
	needs.Missing(t, msg+"; .ci/run installs it")
	return nil
}

// Python3 is the first interpreter Pythons finds.
func Python3(t testing.TB) string {
	t.Helper()
	return Pythons(t)[0]
}

// stderrOf is what a failed command printed on its standard error.
func stderrOf(err error) string {
	if exit, ok := err.(*exec.ExitError); ok {
		return string(exit.Stderr)
	}
	return ""
}

func lastLine(out string, err error) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if l := lines[len(lines)-1]; l != "" {
		return l
	}
	return err.Error()
}

// Source is the package's folder, examples/python of this module.
func Source(t testing.TB) string {
	t.Helper()
	return filepath.Join(binserver.ModuleRoot(t), "examples", "python")
}

// Install makes a virtual environment with py -m venv, as the README
// says (without the system's site-packages), pip-installs a copy of the
// package's sources (PackageFiles under Source) into it with pip's extra
// flags and no package index, and returns the environment's interpreter.
// Building from a copy keeps concurrent runs apart.
func Install(t testing.TB, py string, flags ...string) string {
	t.Helper()
	return InstallIn(t, t.TempDir(), py, flags...)
}

// InstallIn is Install into dir, an empty folder that the caller keeps
// for as long as the environment is used (tests share one that way).
func InstallIn(t testing.TB, dir, py string, flags ...string) string {
	t.Helper()
	src := filepath.Join(dir, "src")
	CopyFiles(t, Source(t), src, PackageFiles)
	venv := filepath.Join(dir, "venv")
	run(t, py, "-m", "venv", venv)
	vpy := filepath.Join(venv, "bin", "python")
	args := append([]string{"-m", "pip", "install", "--no-index", "--disable-pip-version-check"}, flags...)
	run(t, vpy, append(args, src)...)
	return vpy
}

// CopyFiles copies the files matching patterns (relative to from) to the
// same relative paths under dst.
func CopyFiles(t testing.TB, from, dst string, patterns []string) {
	t.Helper()
	for _, pattern := range patterns {
		names, err := filepath.Glob(filepath.Join(from, pattern))
		if err != nil || len(names) == 0 {
			t.Fatalf("%s: no files under %s (%v)", pattern, from, err)
		}
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			rel, err := filepath.Rel(from, name)
			if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(dst, rel)
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// WithoutSqlgymVars drops SQLGYM_* variables from env: they would set
// the tests' URLs.
func WithoutSqlgymVars(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "SQLGYM_") {
			out = append(out, kv)
		}
	}
	return out
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(WithoutSqlgymVars(os.Environ()), "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
