package python_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildModules are what building the package offline needs of an
// interpreter: venv (with ensurepip) to make an environment, and the
// setuptools and wheel that pip install --no-build-isolation builds with.
const buildModules = "import venv, ensurepip, setuptools, wheel"

// debianPackages provide buildModules for Debian's python3.
const debianPackages = "python3 python3-venv python3-setuptools python3-wheel"

// python3 finds an interpreter that can build and install the package
// offline: python3 on PATH, else Debian's /usr/bin/python3. Without one
// the test skips, except in CI, where it fails.
func python3(t *testing.T) string {
	t.Helper()
	var tried []string
	candidates := []string{"/usr/bin/python3"}
	if py, err := exec.LookPath("python3"); err == nil {
		candidates = append([]string{py}, candidates...)
	}
	for _, py := range candidates {
		out, err := exec.Command(py, "-c", buildModules).CombinedOutput()
		if err == nil {
			return py
		}
		tried = append(tried, py+": "+strings.TrimSpace(lastLine(string(out), err)))
	}
	msg := "no python3 that can install the package offline (needs venv, setuptools and wheel; Debian: apt-get install " +
		debianPackages + "): " + strings.Join(tried, "; ")
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true requires it; .ci/run installs it)", msg)
	}
	t.Skip(msg)
	return ""
}

func lastLine(out string, err error) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if l := lines[len(lines)-1]; l != "" {
		return l
	}
	return err.Error()
}

// packageFiles are the package's sources: what pip install builds from.
var packageFiles = []string{"pyproject.toml", "README.md", "sqlgym_client.py", "sqlgym/*.py"}

// installPackage installs the package the way the README says, into a
// new virtual environment, and returns that environment's interpreter.
// It builds from a copy of the sources, so that the build's leftovers
// (build/, *.egg-info) stay out of the tree and concurrent runs apart.
func installPackage(t *testing.T, py string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	copyFiles(t, src, packageFiles)
	venv := filepath.Join(dir, "venv")
	run(t, py, "-m", "venv", "--system-site-packages", venv)
	vpy := filepath.Join(venv, "bin", "python")
	run(t, vpy, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--disable-pip-version-check", src)
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
