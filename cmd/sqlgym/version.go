package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
)

// version and commit name the build. Release builds set them with
// -ldflags "-X main.version=v1.2.3 -X main.commit=SHA" (.goreleaser.yaml);
// a plain go build or go install leaves them empty, and init takes them
// from the build information Go stamps into the binary.
var (
	version string
	commit  string
)

// devVersion is the version of a build that names none: one from a clone.
const devVersion = "0.1.0-dev"

// modified says that the build's tree had uncommitted changes (from the
// build information; release builds are of a clean tree).
var modified bool

func init() {
	info, _ := debug.ReadBuildInfo()
	version, commit, modified = buildVersion(version, commit, info)
}

// pseudoVersion matches the version Go makes up from a commit that has no
// tag: v0.0.0-20261206201113-e1395bf0e939.
var pseudoVersion = regexp.MustCompile(`-(\d+\.)?\d{14}-([0-9a-f]{12})`)

// buildVersion is the version and commit of a build: those set by
// -ldflags where given; else a tagged module version (go install
// ...@v1.2.3) and the VCS revision Go stamped (go build in a clone);
// else devVersion and no commit.
func buildVersion(ldVersion, ldCommit string, info *debug.BuildInfo) (ver, rev string, dirty bool) {
	ver, rev = ldVersion, ldCommit
	if info != nil {
		if v := info.Main.Version; ver == "" && v != "" && v != "(devel)" && !pseudoVersion.MatchString(v) {
			ver = v
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && rev == "":
				rev = s.Value
			case s.Key == "vcs.modified" && ldCommit == "":
				dirty = s.Value == "true"
			}
		}
		if m := pseudoVersion.FindStringSubmatch(info.Main.Version); rev == "" && m != nil {
			rev = m[2] // go install ...@COMMIT: the module version names the commit
		}
	}
	if ver == "" {
		ver = devVersion
	}
	return ver, rev, dirty
}

// versionLine is what --version prints: the version, then the commit
// when known, marked when the tree had uncommitted changes.
func versionLine() string {
	switch {
	case commit == "":
		return "sqlgym " + version + " (commit unknown: built without VCS information)"
	case modified:
		return "sqlgym " + version + " (commit " + commit + ", with uncommitted changes)"
	}
	return "sqlgym " + version + " (commit " + commit + ")"
}

func runVersion(_ context.Context, _ []string, stdout, _ io.Writer) error {
	fmt.Fprintln(stdout, versionLine())
	return nil
}
