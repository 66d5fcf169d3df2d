package failovertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/pyvenv"
)

// episodes is how many episodes a driver run plays, all live at once.
const episodes = 300

// driverLog is what testdata/failover_driver.py writes.
type driverLog struct {
	Episodes   []episodeLog `json:"episodes"`
	Reconnects int          `json:"reconnects"`
	ElapsedS   float64      `json:"elapsed_s"`
	Steps      int          `json:"steps"`
}

// episodeLog is one episode as the driver saw it.
type episodeLog struct {
	Index     int       `json:"index"`
	TaskID    string    `json:"task_id"`
	EpisodeID string    `json:"episode_id"`
	Steps     []stepLog `json:"steps"`
	Close     *closeLog `json:"close"`
	Error     string    `json:"error"`
}

// stepLog is one acknowledged step.
type stepLog struct {
	Turn            int     `json:"turn"`
	Reward          float64 `json:"reward"`
	Terminated      bool    `json:"terminated"`
	Truncated       bool    `json:"truncated"`
	Outcome         *string `json:"outcome"`
	Replayed        bool    `json:"replayed"`
	LatencyMS       float64 `json:"latency_ms"`
	AcrossReconnect bool    `json:"across_reconnect"`
}

// closeLog is the summary episode.close answered.
type closeLog struct {
	Outcome     string  `json:"outcome"`
	TotalReward float64 `json:"total_reward"`
	FinalReward float64 `json:"final_reward"`
	Turns       int     `json:"turns"`
}

// outcome is how the episode ended, as the client was told.
func (e episodeLog) outcome() string {
	if e.Close != nil {
		return e.Close.Outcome
	}
	if n := len(e.Steps); n > 0 && e.Steps[n-1].Outcome != nil {
		return *e.Steps[n-1].Outcome
	}
	return ""
}

// driver runs testdata/failover_driver.py on an installed client.
type driver struct {
	python string // the virtual environment's interpreter
	tasks  string // the demo's tasks.jsonl
}

// newDriver installs the Python package into a virtual environment.
func newDriver(t *testing.T) driver {
	return driver{python: pyvenv.Install(t, pyvenv.Python3(t), "--no-build-isolation"),
		tasks: filepath.Join(binserver.ModuleRoot(t), "examples", "demo", "tasks.jsonl")}
}

// run plays the episodes at url. With gateAfter > 0, atGate runs once
// that many steps were acknowledged, while the even-numbered episodes
// wait; they go on when it returns.
func (d driver) run(t *testing.T, url string, gateAfter int, atGate func()) driverLog {
	t.Helper()
	out := filepath.Join(t.TempDir(), "driver.json")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.python, "testdata/failover_driver.py", "--url", url, "--tasks", d.tasks,
		"--episodes", strconv.Itoa(episodes), "--gate-after", strconv.Itoa(gateAfter), "--log", out)
	cmd.Env = append(pyvenv.WithoutSqlgymVars(os.Environ()), "PYTHONDONTWRITEBYTECODE=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "GATE ") {
			atGate()
			io.WriteString(stdin, "go\n")
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("driver: %v\n%s%s", err, said.String(), stderr.String())
	}
	t.Logf("driver at %s: %s", url, strings.TrimSpace(said.String()))
	return readLog(t, out)
}

// readLog reads the driver's log and fails the test for an episode that
// failed.
func readLog(t *testing.T, path string) driverLog {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var l driverLog
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("driver log: %v", err)
	}
	if len(l.Episodes) != episodes {
		t.Fatalf("driver log holds %d episodes, want %d", len(l.Episodes), episodes)
	}
	for _, e := range l.Episodes {
		if e.Error != "" || e.outcome() == "" {
			t.Errorf("episode %d (%s) did not finish: %q", e.Index, e.EpisodeID, e.Error)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return l
}
