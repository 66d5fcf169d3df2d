// Package binserver runs the real sqlgym binary for tests: it builds
// cmd/sqlgym (once per checkout, relinked only when its sources change),
// starts `sqlgym serve` with the test's flags on a free port, waits until
// it prints where it listens, and stops or kills it. The crash and soak
// tests use it, so each does not carry its own process handling.
package binserver

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// Build builds cmd/sqlgym of this module and returns its path. It
// installs it (go install) into one folder per checkout under the
// system's temporary folder, which every test of every package shares:
// go install relinks only when the sources changed, so the builds after
// the first cost a fraction of a second, not a link of a 40 MB binary
// each. Its rename into place never changes a binary a test is running.
func Build(tb testing.TB) string {
	tb.Helper()
	root := ModuleRoot(tb)
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(os.TempDir(), "sqlgym-test-bin-"+hex.EncodeToString(sum[:6]))
	install := exec.Command("go", "install", "./cmd/sqlgym")
	install.Dir = root
	install.Env = append(os.Environ(), "GOBIN="+dir)
	if out, err := install.CombinedOutput(); err != nil {
		tb.Fatalf("GOBIN=%s go install ./cmd/sqlgym: %v\n%s", dir, err, out)
	}
	return filepath.Join(dir, "sqlgym")
}

// ModuleRoot is the folder of this module's go.mod.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		tb.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// BuildIn builds cmd/sqlgym of the module at root, with more go build
// flags (-ldflags, -buildvcs), into the test's temporary directory and
// returns its path: a one-off build, such as a clone's.
func BuildIn(tb testing.TB, root string, flags ...string) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "sqlgym")
	args := append(append([]string{"build"}, flags...), "-o", bin, "./cmd/sqlgym")
	build := exec.Command("go", args...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin
}

// Process is one run of `sqlgym serve`.
type Process struct {
	Cmd    *exec.Cmd
	URL    string        // ws://127.0.0.1:PORT/v1/ws
	Stderr *LockedBuffer // the server's log
	done   chan error    // the process's exit
}

var wsURL = regexp.MustCompile(`ws://\S+/v1/ws`)

// Start runs `bin serve --addr 127.0.0.1:0 ARGS...` and waits until it
// prints where it listens. The process is killed when the test ends, if
// it is still running.
func Start(tb testing.TB, bin string, args ...string) *Process {
	tb.Helper()
	p := &Process{Stderr: &LockedBuffer{}, done: make(chan error, 1)}
	p.Cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	p.Cmd.Stderr = p.Stderr
	stdout, err := p.Cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := wsURL.FindString(sc.Text()); u != "" {
				select {
				case found <- u: // the first URL printed is where it listens
				default:
				}
			}
		}
		p.done <- p.Cmd.Wait()
	}()
	select {
	case p.URL = <-found:
		tb.Cleanup(func() { p.Kill() })
		return p
	case err := <-p.done:
		tb.Fatalf("server exited before serving: %v\n%s", err, p.Stderr)
	case <-time.After(2 * time.Minute):
		p.Cmd.Process.Kill()
		<-p.done
		tb.Fatalf("server did not start within two minutes\n%s", p.Stderr)
	}
	return nil
}

// HTTP returns the server's http:// base URL.
func (p *Process) HTTP() string {
	return "http://" + strings.TrimSuffix(strings.TrimPrefix(p.URL, "ws://"), "/v1/ws")
}

// Kill sends SIGKILL and waits for the process to be gone; a process
// already gone is left alone. It reads the exit through done, never
// Cmd.ProcessState, which the goroutine waiting for the process writes:
// a server that stopped by itself (a drain's end) is no race.
func (p *Process) Kill() {
	select {
	case err := <-p.done:
		p.done <- err // gone by itself: its exit stays for whoever waits
		return
	default:
	}
	if p.Cmd.Process.Signal(syscall.SIGKILL) == nil {
		<-p.done
	}
}

// Stop asks for a graceful shutdown and checks that it happened within
// 30 s.
func (p *Process) Stop(tb testing.TB) {
	tb.Helper()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	select {
	case err := <-p.done:
		if err != nil {
			tb.Errorf("server stopped with %v\n%s", err, p.Stderr)
		}
	case <-time.After(30 * time.Second):
		p.Cmd.Process.Kill()
		<-p.done
		tb.Errorf("server did not stop within 30s\n%s", p.Stderr)
	}
}

// RSS returns the process's resident memory in bytes, from /proc.
func (p *Process) RSS() (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.Cmd.Process.Pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, os.ErrNotExist
}

// LockedBuffer collects a process's output; safe for concurrent use.
type LockedBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

// Write appends p.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitLog waits until the server's log holds text, for at most
// waitfor.Timeout, and
// reports whether it does: the log is copied from the process's stderr
// by a goroutine of its own, so a line written before the server said
// where it listens may arrive after.
func (p *Process) WaitLog(text string) bool {
	return waitfor.Within(waitfor.Timeout, func() bool { return strings.Contains(p.Stderr.String(), text) })
}

// StartReplica runs `sqlgym serve --takeover` named id on the shared
// PostgreSQL store, with a lease of a second so that a killed replica's
// episodes are taken over soon, and extra flags after. The test stops it
// gracefully when it ends, unless it is gone already.
func StartReplica(tb testing.TB, bin, store, id string, extra ...string) *Process {
	tb.Helper()
	args := append([]string{"--data-dir", tb.TempDir(), "--trajectories", store, "--takeover", "--lease-ttl", "1s",
		"--replica-id", id, "--shutdown-grace", "10s", "--log-level", "warn"}, extra...)
	p := Start(tb, bin, args...)
	tb.Cleanup(func() {
		if p.Cmd.Process.Signal(syscall.Signal(0)) == nil {
			p.Stop(tb)
		}
	})
	return p
}
