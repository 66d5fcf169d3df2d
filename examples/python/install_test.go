package python_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/needs"
)

// buildModules are what installing the package offline needs of an
// interpreter: venv, with ensurepip to put pip in the environment. The
// build itself needs nothing more (_backend/sqlgym_backend.py is standard
// library only): no setuptools, no wheel.
const buildModules = "import venv, ensurepip"

// debianPackages provide buildModules for Debian's python3.
const debianPackages = "python3 python3-venv"

// pythons finds every interpreter that can install the package offline
// among python3 on PATH and Debian's /usr/bin/python3 (the same file
// once). Without one the test skips, except in CI, where it fails.
func pythons(t *testing.T) []string {
	t.Helper()
	var found, tried []string
	seen := map[string]bool{}
	candidates := []string{"/usr/bin/python3"}
	if py, err := exec.LookPath("python3"); err == nil {
		candidates = append([]string{py}, candidates...)
	}
	for _, py := range candidates {
		real, err := filepath.EvalSymlinks(py)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		out, err := exec.Command(py, "-c", buildModules).CombinedOutput()
		if err == nil {
			found = append(found, py)
			continue
		}
		tried = append(tried, py+": "+strings.TrimSpace(lastLine(string(out), err)))
	}
	if len(found) > 0 {
		return found
	}
	msg := "no python3 that can install the package offline (needs venv and ensurepip; Debian: apt-get install " +
		debianPackages + "): " + strings.Join(tried, "; ")
	needs.Missing(t, msg+"; .ci/run installs it")
	return nil
}

// python3 is the first interpreter pythons finds.
func python3(t *testing.T) string {
	t.Helper()
	return pythons(t)[0]
}

func lastLine(out string, err error) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if l := lines[len(lines)-1]; l != "" {
		return l
	}
	return err.Error()
}

// packageFiles are the package's sources: what pip install builds from.
var packageFiles = []string{"pyproject.toml", "README.md", "sqlgym_client.py", "sqlgym/*.py", "_backend/*.py"}

// installPackage installs the package the way the README says (python3
// -m venv, then pip install --no-build-isolation, offline) into a new
// virtual environment, and returns that environment's interpreter. It
// builds from a copy of the sources, so that concurrent runs stay apart.
func installPackage(t *testing.T, py string) string {
	t.Helper()
	return install(t, py, "--no-build-isolation")
}

// install makes a virtual environment with py -m venv, as the README
// says (without the system's site-packages), pip-installs a copy of the
// sources into it with pip's extra flags and no package index, and
// returns the environment's interpreter.
func install(t *testing.T, py string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	copyFiles(t, src, packageFiles)
	venv := filepath.Join(dir, "venv")
	run(t, py, "-m", "venv", venv)
	vpy := filepath.Join(venv, "bin", "python")
	args := append([]string{"-m", "pip", "install", "--no-index", "--disable-pip-version-check"}, flags...)
	run(t, vpy, append(args, src)...)
	return vpy
}

// copyFiles copies the files matching patterns (relative to the working
// directory) to the same relative paths under dst.
func copyFiles(t *testing.T, dst string, patterns []string) {
	t.Helper()
	for _, pattern := range patterns {
		names, err := filepath.Glob(pattern)
		if err != nil || len(names) == 0 {
			t.Fatalf("%s: no files (%v)", pattern, err)
		}
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(dst, name)
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(withoutSqlgymVars(os.Environ()), "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
