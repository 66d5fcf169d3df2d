package crashtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// startServer runs sqlgym serve on a free port over dataDir, with args
// besides the crash test's own.
func startServer(t *testing.T, bin, dataDir string, args ...string) *binserver.Process {
	t.Helper()
	return binserver.Start(t, bin, append([]string{"--data-dir", dataDir,
		"--log-format", "json", "--log-level", "warn", "--max-episodes", "2000"}, args...)...)
}

// tearLastSegment appends half a line to the newest segment, as a crash
// in the middle of a write would leave it.
func tearLastSegment(t *testing.T, logDir string) string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(logDir, "traj-*.log"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segment in %s: %v", logDir, err)
	}
	last := segs[len(segs)-1]
	f, err := os.OpenFile(last, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprint(f, `{"ev":"step","ep":"ep_torn","step":{"turn":1,"observation":"half`); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(last)
}
