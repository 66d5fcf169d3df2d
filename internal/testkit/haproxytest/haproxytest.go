// Package haproxytest runs Debian's HAProxy for tests on the committed
// examples/deploy/haproxy.cfg: the program found (scripts/haproxy-up
// installs it; without it a test skips, and under CI=true fails), the
// configuration bound to a free loopback address with its servers at the
// test's replicas, HAProxy run in the foreground until the test ends, and
// each server's status read from its stats socket. internal/suites/lbtest
// and internal/suites/failovertest run their load balancer through it.
package haproxytest

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/needs"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// Backend is the committed configuration's backend, whose servers
// Status reports.
const Backend = "sqlgym_replicas"

// ConfigPath is the committed HAProxy configuration.
func ConfigPath(t testing.TB) string {
	t.Helper()
	return filepath.Join(binserver.ModuleRoot(t), "examples", "deploy", "haproxy.cfg")
}

// Program is the haproxy program's path, or the test goes without it.
func Program(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/haproxy", "/sbin/haproxy"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	needs.Missing(t, "haproxy is not installed: scripts/haproxy-up installs it")
	return ""
}

// serverLine is the committed configuration's line for replica N.
var serverLine = regexp.MustCompile(`(?m)^    server replica(\d+) sqlgym-(\d+):8765 cookie replica\d+$`)

// LocalConfig is the committed configuration bound to addr, with its
// stats socket at sock and one server line per replica address (named
// replica1, replica2, ... as committed, each with its own cookie); the
// rest as committed. It fails the test when a line it replaces is gone.
func LocalConfig(t testing.TB, addr, sock string, replicas []string) string {
	t.Helper()
	b, err := os.ReadFile(ConfigPath(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	for _, r := range []struct{ re, to string }{
		{`(?m)^    bind :8765$`, "    bind " + addr},
		{`(?m)^    stats socket \S+`, "    stats socket " + sock},
	} {
		re := regexp.MustCompile(r.re)
		if !re.MatchString(cfg) {
			t.Fatalf("%s has no line matching %s", ConfigPath(t), r.re)
		}
		cfg = re.ReplaceAllString(cfg, r.to)
	}
	lines := serverLine.FindAllStringIndex(cfg, -1)
	if len(lines) == 0 {
		t.Fatalf("%s has no line matching %s", ConfigPath(t), serverLine)
	}
	var servers strings.Builder
	for i, r := range replicas {
		fmt.Fprintf(&servers, "    server replica%d %s cookie replica%d\n", i+1, r, i+1)
	}
	first, last := lines[0][0], lines[len(lines)-1][1]
	return cfg[:first] + strings.TrimSuffix(servers.String(), "\n") + cfg[last:]
}

// LB is a running HAProxy.
type LB struct {
	Addr string // host:port clients connect to
	Sock string // its stats socket
}

// URL is the WebSocket URL of sqlgym's endpoint through the load balancer.
func (l LB) URL() string { return "ws://" + l.Addr + "/v1/ws" }

// Start runs HAProxy (the program at bin) in front of the replicas at
// the given host:port addresses, on the committed configuration made
// local, until the test ends; it returns once the stats socket answers.
func Start(t testing.TB, bin string, replicas []string) LB {
	t.Helper()
	l := LB{Addr: FreeAddr(t), Sock: filepath.Join(t.TempDir(), "stats.sock")}
	run(t, bin, LocalConfig(t, l.Addr, l.Sock, replicas), l)
	return l
}

// run runs HAProxy in the foreground on cfg until the test ends, and
// returns once l's stats socket answers.
func run(t testing.TB, bin, cfg string, l LB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "-f", path)
	var out binserver.LockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	waitfor.Until(t, "HAProxy's stats socket", func() bool {
		select {
		case <-exited:
			t.Fatalf("haproxy exited:\n%s", out.String())
		default:
		}
		c, err := net.Dial("unix", l.Sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// Status is each server's status (UP, DOWN, ...) in HAProxy's
// `show stat`, read from its stats socket.
func (l LB) Status(t testing.TB) map[string]string {
	t.Helper()
	c, err := net.Dial("unix", l.Sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "show stat\n")
	r := csv.NewReader(bufio.NewReader(c))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("show stat: %v", err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.TrimPrefix(h, "# ")] = i
	}
	out := map[string]string{}
	for _, row := range rows[1:] {
		if len(row) > col["status"] && row[col["pxname"]] == Backend {
			out[row[col["svname"]]] = row[col["status"]]
		}
	}
	return out
}

// WaitUp waits until HAProxy marks every one of n servers UP.
func (l LB) WaitUp(t testing.TB, n int) {
	t.Helper()
	waitfor.Until(t, fmt.Sprintf("%d replicas UP in HAProxy", n), func() bool {
		s := l.Status(t)
		for i := 1; i <= n; i++ {
			if s[fmt.Sprintf("replica%d", i)] != "UP" {
				return false
			}
		}
		return true
	})
}

// FreeAddr is a loopback address nothing listens on.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
