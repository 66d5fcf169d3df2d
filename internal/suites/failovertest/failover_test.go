package failovertest

import (
	"syscall"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// gateAfter is how many acknowledged steps the failover waits for: about
// a quarter of the run, with every episode started and none ended.
const gateAfter = episodes

// takeoverFlags are replica i's flags: the short lease and idle timeout
// let the test see a dead replica's episodes taken over, and orphans
// ended, within its time; the log at info level says when a drain ends.
func takeoverFlags(i int) []string {
	return []string{"--takeover", "--replica-id", replicaID(i), "--lease-ttl", "3s", "--idle-timeout", "10s"}
}

// TestReplicas plays the driver's 300 episodes through HAProxy in front
// of three --takeover replicas, and on one plain server for the rewards
// to compare with.
//
// steady: no replica is lost; the episodes spread over all three.
//
// failover: once a quarter of the steps are acknowledged, with episodes
// live on each replica, one replica is killed (SIGKILL) and another
// drained (SIGTERM); a fifth of the episodes are reset only then.
// Every episode finishes on the replica left.
//
// In both, the store holds exactly the steps the clients were
// acknowledged (none lost, none run twice), every trajectory ended with
// an outcome (one no client was told of, a lost reset's, only as
// abandoned), `sqlgym replay` reproduces them all, and each episode's
// rewards are those of the plain server.
func TestReplicas(t *testing.T) {
	bin := binserver.Build(t)
	d := newDriver(t)
	want := plainRun(t, d, bin)
	t.Run("steady", func(t *testing.T) {
		c := startCluster(t, bin, 3, takeoverFlags)
		got := d.run(t, c.lb.URL(), 0, nil)
		for i, p := range c.replicas {
			if started(t, p) == 0 {
				t.Errorf("replica %d started no episode: HAProxy did not spread the sockets", i+1)
			}
		}
		if orphans := c.complete(t, got, want, c.replicas...); orphans != 0 {
			t.Errorf("%d trajectories no client was told of, with no replica lost", orphans)
		}
	})
	t.Run("failover", func(t *testing.T) {
		c := startCluster(t, bin, 3, takeoverFlags)
		killed, drained, left := c.replicas[0], c.replicas[1], c.replicas[2]
		got := d.run(t, c.lb.URL(), gateAfter, func() {
			for i, p := range c.replicas[:2] {
				if live := metricstest.Scrape(t, p.HTTP()+"/metrics", "sqlgym_live_episodes"); live == 0 {
					t.Errorf("replica %d holds no live episode when it is stopped", i+1)
				}
			}
			killed.Kill()
			if err := drained.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Error(err)
			}
		})
		if got.Reconnects == 0 || len(resentLatencies(got)) == 0 {
			t.Errorf("the clients reconnected %d times and resent %d steps: the failover was not seen",
				got.Reconnects, len(resentLatencies(got)))
		}
		if !drained.WaitLog("INFO\tstopped") {
			t.Errorf("the drained replica did not stop\n%s", drained.Stderr)
		}
		reportCost(t, got, left)
		orphans := c.complete(t, got, want, left)
		t.Logf("%d episodes, %d steps acknowledged (%d answered from the record: info.replayed), %d client reconnects; "+
			"%d trajectories of lost resets, ended abandoned", len(got.Episodes), got.Steps, replayed(got), got.Reconnects, orphans)
	})
}

// complete checks the store once the driver is done: it waits until
// every trajectory has ended (orphans end after the idle timeout), stops
// the replicas still running, holds the store to what the clients were
// told, replays it, and compares the rewards with want's. It returns how
// many trajectories no client was told of.
func (c *cluster) complete(t *testing.T, got, want driverLog, running ...*binserver.Process) int {
	t.Helper()
	conn := pgtest.Conn(t)
	if !waitfor.Within(3*waitfor.Timeout, func() bool { return allEnded(t, conn, c.schema) }) {
		t.Fatal("trajectories still open in the store, past the idle timeout")
	}
	for _, p := range running {
		p.Stop(t)
	}
	store := readStore(t, conn, c.schema)
	orphans := checkStore(t, store, got)
	replayStore(t, c.bin, c.store, len(store))
	sameRewards(t, got, want)
	return orphans
}

// reportCost logs what a takeover cost: as the client saw it (first send
// to reply of the steps whose call spanned a reconnect) and as the
// replica left measured it (its takeover histograms: the claim and the
// rebuild, not the wait for a dead replica's lease); it fails the test
// when the replica left took no episode over.
func reportCost(t *testing.T, l driverLog, left *binserver.Process) {
	lat := resentLatencies(l)
	t.Logf("client: %d steps across a reconnect: p50 %.0f ms, p99 %.0f ms, max %.0f ms",
		len(lat), quantile(lat, 0.5), quantile(lat, 0.99), quantile(lat, 1))
	hs := scrapeHistograms(t, left.HTTP()+"/metrics", "sqlgym_takeover")
	if hs["sqlgym_takeover_seconds"].count() == 0 {
		t.Errorf("the replica left took no episode over (sqlgym_takeover_seconds is empty)")
	}
	for name, h := range hs {
		t.Logf("server: %s: %.0f observations, p50 %.4g, p99 %.4g", name, h.count(), h.quantile(0.5), h.quantile(0.99))
	}
}
