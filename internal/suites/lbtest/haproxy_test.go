package lbtest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/haproxytest"
)

// TestHAProxyConfigValid: the committed configuration is one HAProxy
// accepts as it is.
func TestHAProxyConfigValid(t *testing.T) {
	cfg := haproxytest.ConfigPath(t)
	out, err := exec.Command(haproxytest.Program(t), "-c", "-f", cfg).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Configuration file is valid") {
		t.Fatalf("haproxy -c -f %s: %v\n%s", cfg, err, out)
	}
}
