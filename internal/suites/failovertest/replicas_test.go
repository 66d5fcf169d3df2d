package failovertest

import (
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestReplicasBehindHAProxy: three replicas sharing one PostgreSQL store
// behind HAProxy play the driver's episodes, spread over all three; the
// store holds exactly what the clients were told, it replays, and the
// rewards are those of one plain server.
func TestReplicasBehindHAProxy(t *testing.T) {
	bin := binserver.Build(t)
	d := newDriver(t)
	c := startCluster(t, bin, 3, func(int) []string { return []string{"--log-level", "warn"} })
	got := d.run(t, c.lb.URL(), 0, nil)
	for i, p := range c.replicas {
		if started(t, p) == 0 {
			t.Errorf("replica %d started no episode: HAProxy did not spread the sockets", i+1)
		}
	}
	for _, p := range c.replicas {
		p.Stop(t) // its trajectories written
	}
	waitfor.Until(t, "every trajectory ended in the store", func() bool { return allEnded(t, c.schema) })
	store := readStore(t, c.schema)
	if orphans := checkStore(t, store, got); orphans != 0 {
		t.Errorf("%d trajectories no client was told of, with no replica lost", orphans)
	}
	replayStore(t, bin, c.store, len(store))
	sameRewards(t, got, plainRun(t, d, bin))
}
