package imagetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/needs"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// container is one run of the image under runc.
type container struct {
	id     string
	cmd    *exec.Cmd
	out    *binserver.LockedBuffer // its stdout and stderr
	exited chan struct{}
}

// TestImageServesAnEpisode builds the image with scripts/image, runs it
// with runc as its config says, with PostgreSQL as the trajectory store,
// and plays an episode against it.
func TestImageServesAnEpisode(t *testing.T) {
	if _, err := exec.LookPath("runc"); err != nil {
		needs.Missing(t, "runc is not installed: scripts/runc-up installs it")
	}
	if os.Geteuid() != 0 {
		needs.Missing(t, "runc runs the image's container as root only: run this test as root")
	}
	store := pgtest.Database(t)
	out := t.TempDir()
	build := exec.Command(filepath.Join(repoRoot(t), "scripts", "image"), out)
	build.Dir = repoRoot(t)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/image: %v\n%s", err, b)
	}
	img := loadImage(t, filepath.Join(out, "image"))
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	const token = "image-test-token"
	env := []string{"SQLGYM_ADDR=0.0.0.0:" + port, "SQLGYM_TOKEN=" + token, "SQLGYM_TRAJECTORIES=" + store}
	data := t.TempDir()
	uid, gid := owner(t, cf.Config)
	if err := os.Chown(data, uid, gid); err != nil { // a named volume takes the owner of the image's /data
		t.Fatal(err)
	}
	c := run(t, img, cf.Config, data, env)
	waitHealthy(t, c, "http://127.0.0.1:"+port+"/healthz")
	c.healthcheck(t, cf.Config, env)
	checkUser(t, c, uid, gid)
	id := playEpisode(t, "ws://127.0.0.1:"+port+"/v1/ws", token)
	checkStored(t, store, id)
	checkDataDir(t, data, uid)
	c.stop(t)
}

// run unpacks img into a bundle and starts it under runc; the container
// is killed and deleted when the test ends.
func run(t *testing.T, img v1.Image, c v1.Config, data string, env []string) *container {
	t.Helper()
	bundle := t.TempDir()
	unpack(t, img, filepath.Join(bundle, "rootfs"))
	writeSpec(t, bundle, c, data, env)
	var b [6]byte
	rand.Read(b[:])
	ct := &container{id: "sqlgym-imagetest-" + hex.EncodeToString(b[:]), out: &binserver.LockedBuffer{}, exited: make(chan struct{})}
	ct.cmd = exec.Command("runc", "run", "--bundle", bundle, ct.id)
	ct.cmd.Stdout, ct.cmd.Stderr = ct.out, ct.out
	if err := ct.cmd.Start(); err != nil {
		t.Fatalf("runc run: %v", err)
	}
	go func() { ct.cmd.Wait(); close(ct.exited) }()
	t.Cleanup(func() {
		exec.Command("runc", "kill", ct.id, "KILL").Run()
		<-ct.exited
		exec.Command("runc", "delete", "--force", ct.id).Run()
	})
	return ct
}

// waitHealthy waits until the container's /healthz answers 200, failing
// at once if the container exits first.
func waitHealthy(t *testing.T, c *container, url string) {
	t.Helper()
	healthy := func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	var exited bool
	waitfor.Until(t, "the container's "+url, func() bool {
		select {
		case <-c.exited:
			exited = true
			return true
		default:
			return healthy()
		}
	})
	if exited {
		t.Fatalf("the container exited before it served:\n%s", c.out)
	}
}

// healthcheck runs the image's HEALTHCHECK command inside the container,
// as its user with its environment, and checks that it passes.
func (c *container) healthcheck(t *testing.T, cfg v1.Config, env []string) {
	t.Helper()
	test := cfg.Healthcheck.Test
	if len(test) < 2 || test[0] != "CMD" {
		t.Fatalf("the image's HEALTHCHECK is %q, want [CMD ...]", test)
	}
	args := []string{"exec", "--user", cfg.User, "--cwd", cfg.WorkingDir}
	for _, e := range append(append([]string{}, cfg.Env...), env...) {
		args = append(args, "--env", e)
	}
	out, err := exec.Command("runc", append(append(args, c.id), test[1:]...)...).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "healthy: ") {
		t.Errorf("the image's HEALTHCHECK %q inside the container: %v\n%s", test[1:], err, out)
	}
}

// checkUser checks that the container's process runs as the image's
// user, real, effective, saved and file system IDs all.
func checkUser(t *testing.T, c *container, uid, gid int) {
	t.Helper()
	out, err := exec.Command("runc", "state", c.id).Output()
	if err != nil {
		t.Fatalf("runc state: %v", err)
	}
	var state struct {
		Pid int `json:"pid"`
	}
	if err := json.Unmarshal(out, &state); err != nil || state.Pid <= 0 {
		t.Fatalf("runc state: %v\n%s", err, out)
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(state.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Uid:\t" + ids(uid), "Gid:\t" + ids(gid)} {
		if !strings.Contains(string(status), "\n"+want+"\n") {
			t.Errorf("the container's process (pid %d) has no %q in its status:\n%s", state.Pid, want, status)
		}
	}
	if uid == 0 {
		t.Errorf("the image runs as root")
	}
}

// ids is a /proc status line's four IDs, all id.
func ids(id int) string {
	s := strconv.Itoa(id)
	return strings.Join([]string{s, s, s, s}, "\t")
}

// checkStored checks that the episode's trajectory is in PostgreSQL,
// ended and correct.
func checkStored(t *testing.T, store, episodeID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var task, outcome string
	var steps int
	// The store writes in batches: the end lands shortly after the reply.
	waitfor.Until(t, "episode "+episodeID+"'s end in PostgreSQL", func() bool {
		err = conn.QueryRow(ctx, `SELECT e.task_id, coalesce(e.outcome, ''), (SELECT count(*) FROM sqlgym_steps s WHERE s.episode_id = e.episode_id)
			FROM sqlgym_episodes e WHERE e.episode_id = $1`, episodeID).Scan(&task, &outcome, &steps)
		return err == nil && outcome != ""
	})
	if task != demoTask || outcome != "correct" || steps != 2 {
		t.Errorf("PostgreSQL holds episode %s as task %q, outcome %q, %d steps; want %q, correct, 2", episodeID, task, outcome, steps, demoTask)
	}
}

// checkDataDir checks that the server wrote into its volume (the demo's
// databases), as the image's user.
func checkDataDir(t *testing.T, data string, uid int) {
	t.Helper()
	entries, err := os.ReadDir(data)
	if err != nil || len(entries) == 0 {
		t.Fatalf("the volume holds nothing: %v", err)
	}
	var names bytes.Buffer
	for _, e := range entries {
		names.WriteString(e.Name() + " ")
	}
	out, err := exec.Command("find", data, "-mindepth", "1", "!", "-uid", strconv.Itoa(uid)).Output()
	if err != nil || len(out) > 0 {
		t.Errorf("files in the volume (%s) not owned by %d: %v\n%s", names.String(), uid, err, out)
	}
}

// stop ends the container with SIGTERM, as docker stop does, and checks
// that the server stops by itself.
func (c *container) stop(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("runc", "kill", c.id, "TERM").CombinedOutput(); err != nil {
		t.Fatalf("runc kill TERM: %v\n%s", err, out)
	}
	waitfor.Until(t, "the container to stop on SIGTERM", func() bool {
		select {
		case <-c.exited:
			return true
		default:
			return false
		}
	})
	if code := c.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the container exited with %d on SIGTERM:\n%s", code, c.out)
	}
}

// freePort is a TCP port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// repoRoot is the module's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
