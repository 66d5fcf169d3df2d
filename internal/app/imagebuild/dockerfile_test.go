package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// TestDockerfileAgrees checks that the final stage of the Dockerfile and
// the image this program assembles run the same way: user, environment,
// working directory, volume, port, entry point, command, health check
// and labels, so that neither can change without the other.
func TestDockerfileAgrees(t *testing.T) {
	stage := finalStage(t, "../../../Dockerfile")
	img := assemble(t)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	got, want := cf.Config, stage.config(t)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("the image runs with\n%s\nthe Dockerfile's final stage with\n%s", g, w)
	}
	if cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("the image is for %s/%s", cf.OS, cf.Architecture)
	}
}

// TestDockerfileBuildsAsTheScript checks that the Dockerfile's builder
// and scripts/image compile the binary with the same flags.
func TestDockerfileBuildsAsTheScript(t *testing.T) {
	dockerfile, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../../scripts/image")
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"CGO_ENABLED=1 go build -trimpath -tags netgo,osusergo",
		`-ldflags "-s -w -X main.version=${`, `} -linkmode external -extldflags -static"`, "./cmd/sqlgym"} {
		for name, text := range map[string][]byte{"Dockerfile": dockerfile, "scripts/image": script} {
			if !strings.Contains(string(text), flag) {
				t.Errorf("%s does not build with %q", name, flag)
			}
		}
	}
}

// assemble builds the image around a stand-in binary and certificates.
func assemble(t *testing.T) v1.Image {
	t.Helper()
	dir := t.TempDir()
	bin, certs := filepath.Join(dir, "sqlgym"), filepath.Join(dir, "ca.crt")
	os.WriteFile(bin, []byte("binary"), 0o755)
	os.WriteFile(certs, []byte("certificates"), 0o644)
	img, err := build(bin, certs, "v9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// stage is the instructions of one Dockerfile stage, continuation lines
// joined, comments left out: each its keyword (upper case) and the rest.
type stage [][2]string

// finalStage reads the instructions after the Dockerfile's last FROM.
func finalStage(t *testing.T, path string) stage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var all stage
	var cur string
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur == "" && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			continue // a comment inside a continued instruction
		}
		if rest, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur += rest + " "
			continue
		}
		cur += trimmed
		kw, args, _ := strings.Cut(cur, " ")
		all = append(all, [2]string{strings.ToUpper(kw), strings.TrimSpace(args)})
		cur = ""
	}
	last := -1
	for i, in := range all {
		if in[0] == "FROM" {
			last = i
		}
	}
	if last < 0 {
		t.Fatalf("%s has no FROM", path)
	}
	return all[last+1:]
}

// config is the run configuration the stage gives an image, read as
// docker build reads it, for the instructions this Dockerfile uses.
func (s stage) config(t *testing.T) v1.Config {
	t.Helper()
	c := v1.Config{ExposedPorts: map[string]struct{}{}, Volumes: map[string]struct{}{}, Labels: map[string]string{}}
	args := map[string]string{}
	for _, in := range s {
		kw, rest := in[0], in[1]
		switch kw {
		case "ARG":
			k, v, _ := strings.Cut(rest, "=")
			args[k] = v
		case "LABEL", "ENV":
			for _, kv := range pairs(t, rest) {
				k, v, _ := strings.Cut(kv, "=")
				v = os.Expand(strings.Trim(v, `"`), func(name string) string { return args[name] })
				if kw == "LABEL" {
					c.Labels[k] = v
				} else {
					c.Env = append(c.Env, k+"="+v)
				}
			}
		case "WORKDIR":
			c.WorkingDir = rest
		case "VOLUME":
			for _, v := range jsonArray(t, kw, rest) {
				c.Volumes[v] = struct{}{}
			}
		case "USER":
			c.User = rest
		case "EXPOSE":
			for _, p := range strings.Fields(rest) {
				c.ExposedPorts[p] = struct{}{}
			}
		case "HEALTHCHECK":
			c.Healthcheck = healthcheck(t, rest)
		case "ENTRYPOINT":
			c.Entrypoint = jsonArray(t, kw, rest)
		case "CMD":
			c.Cmd = jsonArray(t, kw, rest)
		case "COPY", "RUN":
		default:
			t.Errorf("the final stage's %s is not compared with the image: compare it here", kw)
		}
	}
	if args["VERSION"] != "" {
		c.Labels["org.opencontainers.image.version"] = "v9.9.9" // the version label is the build's
	}
	return c
}

// pairs splits KEY=VALUE KEY="VALUE" ... on the spaces outside quotes.
func pairs(t *testing.T, s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	for _, p := range out {
		if !strings.Contains(p, "=") {
			t.Errorf("%q is not KEY=VALUE", p)
		}
	}
	return out
}

// jsonArray reads the exec form of an instruction.
func jsonArray(t *testing.T, kw, s string) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Errorf("%s %s: want the exec form, a JSON array: %v", kw, s, err)
	}
	return out
}

// healthcheck reads HEALTHCHECK [--OPTION=VALUE ...] CMD [...].
func healthcheck(t *testing.T, s string) *v1.HealthConfig {
	t.Helper()
	h := &v1.HealthConfig{}
	for strings.HasPrefix(s, "--") {
		opt, rest, _ := strings.Cut(s, " ")
		s = strings.TrimSpace(rest)
		k, v, _ := strings.Cut(strings.TrimPrefix(opt, "--"), "=")
		if k == "retries" {
			json.Unmarshal([]byte(v), &h.Retries)
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Errorf("HEALTHCHECK --%s: %v", k, err)
		}
		switch k {
		case "interval":
			h.Interval = d
		case "timeout":
			h.Timeout = d
		case "start-period":
			h.StartPeriod = d
		default:
			t.Errorf("HEALTHCHECK --%s is not compared with the image", k)
		}
	}
	cmd, ok := strings.CutPrefix(s, "CMD ")
	if !ok {
		t.Errorf("HEALTHCHECK %s: want CMD [...]", s)
	}
	h.Test = slices.Concat([]string{"CMD"}, jsonArray(t, "HEALTHCHECK CMD", cmd))
	return h
}

// TestComposeRunsTheImage checks that compose.yaml runs the image as it
// is: its health check, its volume and port, PostgreSQL as the store, and
// sqlgym started once PostgreSQL is healthy.
func TestComposeRunsTheImage(t *testing.T) {
	b, err := os.ReadFile("../../../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	compose := string(b)
	c := imageConfig("dev")
	test, _ := json.Marshal(c.Healthcheck.Test)
	hostPort, _, _ := strings.Cut(port, "/")
	for _, want := range []string{
		"test: " + strings.ReplaceAll(string(test), `","`, `", "`),
		"- sqlgym-data:" + dataDir,
		`- "` + hostPort + ":" + hostPort + `"`,
		"SQLGYM_TRAJECTORIES: postgres://",
		"SQLGYM_TOKEN: ${SQLGYM_TOKEN:?",
		"condition: service_healthy",
		`test: ["CMD", "pg_isready"`,
	} {
		if !strings.Contains(compose, want) {
			t.Errorf("compose.yaml has no %q", want)
		}
	}
}
