package lbtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/haproxytest"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// episode is a client through the load balancer and the episode it has
// live.
type episode struct {
	c  *client.Client
	id string
}

// play opens n sockets at url at once and starts an episode on each,
// stepping it once.
func play(t *testing.T, url string, n int) []episode {
	ctx := context.Background()
	out := make([]episode, n)
	for i := range out {
		c, err := client.Dial(ctx, url, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		ep, err := c.Reset(ctx, schemas.ResetParams{})
		if err != nil {
			t.Fatalf("reset %d through the load balancer: %v", i, err)
		}
		out[i] = episode{c: c, id: ep.EpisodeID}
		stepOnce(t, out[i])
	}
	return out
}

// stepOnce steps e with a query that leaves it live.
func stepOnce(t *testing.T, e episode) {
	r, err := e.c.Step(context.Background(), e.id, client.ToolCall("execute_sql", map[string]any{"sql": "SELECT 1"}))
	if err != nil || r.Terminated || r.Truncated {
		t.Fatalf("step of %s: %+v, %v", e.id, r, err)
	}
}

// holds reports whether the replica at url has the episode id live.
func holds(t *testing.T, url, id string) bool {
	c, err := client.Dial(context.Background(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Episode(context.Background(), id)
	var rpcErr *schemas.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == schemas.CodeEpisodeNotFound {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// started is a replica's sqlgym_episodes_started_total.
func started(t *testing.T, p *binserver.Process) float64 {
	return metricstest.Scrape(t, p.HTTP()+"/metrics", "sqlgym_episodes_started_total")
}

// TestDrainBehindHAProxy: HAProxy on the committed configuration spreads
// WebSocket episodes over two replicas; once one is told to stop, its
// /readyz takes it out of HAProxy's rotation (show stat: DOWN), the
// episodes already on it are still stepped through their sockets, every
// new episode goes to the other replica, and the stopped one exits once
// its episodes have ended.
func TestDrainBehindHAProxy(t *testing.T) {
	hp := haproxytest.Program(t)
	bin := binserver.Build(t)
	var reps [2]*binserver.Process
	addrs := make([]string, len(reps))
	for i := range reps {
		reps[i] = binserver.Start(t, bin, "--data-dir", t.TempDir(), "--shutdown-grace", "10m")
		addrs[i] = strings.TrimPrefix(reps[i].HTTP(), "http://")
	}
	l := haproxytest.Start(t, hp, addrs)
	l.WaitUp(t, len(reps))
	url := l.URL()
	first := play(t, url, 4) // leastconn: two sockets on each
	if started(t, reps[0]) == 0 || started(t, reps[1]) == 0 {
		t.Fatalf("episodes not spread: started %v and %v", started(t, reps[0]), started(t, reps[1]))
	}
	victim, other := reps[0], reps[1]
	var onVictim []episode
	for _, e := range first {
		if holds(t, victim.URL, e.id) {
			onVictim = append(onVictim, e)
		}
	}
	if len(onVictim) == 0 {
		t.Fatal("no episode on replica1")
	}
	if err := victim.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "HAProxy marks replica1 DOWN", func() bool { return l.Status(t)["replica1"] == "DOWN" })
	if s := l.Status(t)["replica2"]; s != "UP" {
		t.Fatalf("replica2 is %s", s)
	}
	checkStatus(t, victim.HTTP()+"/livez", http.StatusOK)
	checkStatus(t, victim.HTTP()+"/readyz", http.StatusServiceUnavailable)
	for _, e := range onVictim {
		stepOnce(t, e) // its socket still reaches the draining replica
	}
	before, beforeOther := started(t, victim), started(t, other)
	play(t, url, 4)
	if got := started(t, victim); got != before {
		t.Fatalf("the draining replica started %v new episodes", got-before)
	}
	if got := started(t, other); got != beforeOther+4 {
		t.Fatalf("replica2 started %v of the 4 new episodes", got-beforeOther)
	}
	for _, e := range onVictim {
		if _, err := e.c.CloseEpisode(context.Background(), e.id); err != nil {
			t.Fatal(err)
		}
	}
	if !victim.WaitLog("INFO\tstopped") {
		t.Fatalf("replica1 did not stop once its episodes ended\n%s", victim.Stderr)
	}
}

// checkStatus fails the test unless GET url answers code.
func checkStatus(t *testing.T, url string, code int) {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != code {
		t.Fatalf("GET %s: %d, want %d", url, resp.StatusCode, code)
	}
}
