package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// goreleaserBuild is the part of a build of .goreleaser.yaml the tests read.
type goreleaserBuild struct {
	ID      string   `yaml:"id"`
	Main    string   `yaml:"main"`
	Goos    []string `yaml:"goos"`
	Goarch  []string `yaml:"goarch"`
	Env     []string `yaml:"env"`
	Ldflags []string `yaml:"ldflags"`
}

// TestGoreleaserConfig checks that .goreleaser.yaml is GoReleaser v2's
// format, builds cmd/sqlgym with cgo for linux/amd64, linux/arm64 and
// both darwin architectures, each with a C compiler, and sets the version
// and commit through variables this package has: a binary built with its
// ldflags prints them.
func TestGoreleaserConfig(t *testing.T) {
	root := binserver.ModuleRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int               `yaml:"version"`
		Builds  []goreleaserBuild `yaml:"builds"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 {
		t.Errorf(".goreleaser.yaml: version %d, want 2", cfg.Version)
	}
	var targets []string
	ldflags := ""
	for _, b := range cfg.Builds {
		for _, goos := range b.Goos {
			for _, arch := range b.Goarch {
				targets = append(targets, goos+"/"+arch)
			}
		}
		if b.Main != "./cmd/sqlgym" || !slices.Contains(b.Env, "CGO_ENABLED=1") || !slices.ContainsFunc(b.Env, func(e string) bool {
			return strings.HasPrefix(e, "CC=")
		}) {
			t.Errorf("build %s: main %q, env %q; want ./cmd/sqlgym with CGO_ENABLED=1 and a CC", b.ID, b.Main, b.Env)
		}
		if len(b.Ldflags) != 1 || ldflags != "" && b.Ldflags[0] != ldflags {
			t.Errorf("build %s: ldflags %q differ from the others' %q", b.ID, b.Ldflags, ldflags)
		}
		ldflags = strings.Join(b.Ldflags, " ")
	}
	slices.Sort(targets)
	if want := []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"}; !slices.Equal(targets, want) {
		t.Errorf(".goreleaser.yaml builds %v, want %v", targets, want)
	}
	_ = []*string{&version, &commit} // the variables the ldflags set
	if !strings.Contains(ldflags, "-X main.version={{.Version}}") || !strings.Contains(ldflags, "-X main.commit={{.FullCommit}}") {
		t.Fatalf("ldflags %q do not set main.version and main.commit", ldflags)
	}
	release := strings.NewReplacer("{{.Version}}", "9.8.7", "{{.FullCommit}}", "0123456789abcdef0123456789abcdef01234567").Replace(ldflags)
	bin := binserver.BuildIn(t, root, "-ldflags", release)
	out, err := exec.Command(bin, "--version").Output()
	if want := "sqlgym 9.8.7 (commit 0123456789abcdef0123456789abcdef01234567)\n"; err != nil || string(out) != want {
		t.Errorf("a release build's --version: %q, %v; want %q", out, err, want)
	}
}

// TestVersionNamesTheCommit checks that a plain go build names the commit
// it was built from: Go stamps the VCS revision into the binary and
// --version prints it. Go finds the revision only where .git is a
// folder, not in a git worktree, so the test builds a clone of HEAD.
// Without -trimpath: the clone's own packages compile afresh (about 20 s
// of CPU), but its dependencies, SQLite's C above all, come from the
// build cache the other tests' builds and go vet fill, where a -trimpath
// build compiles them all once more on a cold cache (about 150 s).
func TestVersionNamesTheCommit(t *testing.T) {
	root := binserver.ModuleRoot(t)
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	clone := filepath.Join(t.TempDir(), "sqlgym")
	if out, err := exec.Command("git", "clone", "--quiet", "--shared", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	bin := binserver.BuildIn(t, clone, "-buildvcs=true")
	for _, arg := range []string{"--version", "version"} {
		out, err := exec.Command(bin, arg).Output()
		want := regexp.MustCompile(`^sqlgym \S+ \(commit ` + strings.TrimSpace(string(head)) + `\)\n$`)
		if err != nil || !want.Match(out) {
			t.Errorf("sqlgym %s: %q, %v; want it to name commit %s", arg, out, err, head)
		}
	}
}

// TestBuildVersion checks where the version and commit come from: the
// ldflags first, then a tagged module version and the VCS revision Go
// stamped, then the commit a pseudo-version names, else devVersion.
func TestBuildVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tt := range []struct {
		ldVersion, ldCommit string
		info                *debug.BuildInfo
		ver, rev            string
		dirty               bool
	}{
		{"v1.2.3", "abc", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("def", "true")}, "v1.2.3", "abc", false},
		{"", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("def", "true")}, devVersion, "def", true},
		{"", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0", "", false},
		{"", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261206201113-e1395bf0e939"}}, devVersion, "e1395bf0e939", false},
		{"", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.1-0.20261206201113-e1395bf0e939+dirty"}, Settings: vcs("e1395bf0e9395bb0dd3eef4c51ea38aa6bc3958f", "true")},
			devVersion, "e1395bf0e9395bb0dd3eef4c51ea38aa6bc3958f", true},
		{"", "", nil, devVersion, "", false},
	} {
		ver, rev, dirty := buildVersion(tt.ldVersion, tt.ldCommit, tt.info)
		if ver != tt.ver || rev != tt.rev || dirty != tt.dirty {
			t.Errorf("buildVersion(%q, %q, %+v) = %q, %q, %v; want %q, %q, %v", tt.ldVersion, tt.ldCommit, tt.info, ver, rev, dirty, tt.ver, tt.rev, tt.dirty)
		}
	}
}
