package lbtest

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

// configPath is the committed HAProxy configuration.
func configPath(t *testing.T) string {
	return filepath.Join(binserver.ModuleRoot(t), "examples", "deploy", "haproxy.cfg")
}

// haproxy is the haproxy program's path, or the test goes without it.
func haproxy(t *testing.T) string {
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

// TestHAProxyConfigValid: the committed configuration is one HAProxy
// accepts as it is.
func TestHAProxyConfigValid(t *testing.T) {
	out, err := exec.Command(haproxy(t), "-c", "-f", configPath(t)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Configuration file is valid") {
		t.Fatalf("haproxy -c -f %s: %v\n%s", configPath(t), err, out)
	}
}

// localConfig is the committed configuration bound to addr, its servers
// at the replicas' addresses and its stats socket at sock; the rest as
// committed. It fails the test when a line it replaces is gone.
func localConfig(t *testing.T, addr, sock string, replicas [2]string) string {
	b, err := os.ReadFile(configPath(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	for _, r := range []struct{ re, to string }{
		{`(?m)^    bind :8765$`, "    bind " + addr},
		{`(?m)^    stats socket \S+`, "    stats socket " + sock},
		{`(?m)^    server replica1 sqlgym-1:8765`, "    server replica1 " + replicas[0]},
		{`(?m)^    server replica2 sqlgym-2:8765`, "    server replica2 " + replicas[1]},
	} {
		re := regexp.MustCompile(r.re)
		if !re.MatchString(cfg) {
			t.Fatalf("%s has no line matching %s", configPath(t), r.re)
		}
		cfg = re.ReplaceAllString(cfg, r.to)
	}
	return cfg
}

// lb is a running HAProxy.
type lb struct {
	addr string // host:port clients connect to
	sock string // its stats socket
}

// startHAProxy runs HAProxy in the foreground on cfg until the test ends.
func startHAProxy(t *testing.T, bin, cfg string, l lb) {
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
		c, err := net.Dial("unix", l.sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// status is each server's status (UP, DOWN, ...) in HAProxy's
// `show stat`, read from its stats socket.
func (l lb) status(t *testing.T) map[string]string {
	c, err := net.Dial("unix", l.sock)
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
		if len(row) > col["status"] && row[col["pxname"]] == "sqlgym_replicas" {
			out[row[col["svname"]]] = row[col["status"]]
		}
	}
	return out
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
