package failovertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/haproxytest"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// cluster is replicas sharing one PostgreSQL store behind HAProxy.
type cluster struct {
	bin      string
	store    string // the postgres:// URL, its search_path the test's schema
	schema   string
	replicas []*binserver.Process
	lb       haproxytest.LB
}

// startCluster starts n replicas of bin on a fresh schema, each with
// the flags flags(i) gives beside the store's, and HAProxy in front of
// them, and waits until HAProxy marks them all UP.
func startCluster(t *testing.T, bin string, n int, flags func(i int) []string) *cluster {
	hp := haproxytest.Program(t)
	c := &cluster{bin: bin}
	c.store, c.schema = pgtest.URL(t)
	addrs := make([]string, n)
	for i := range n {
		args := append([]string{"--data-dir", t.TempDir(), "--trajectories", c.store}, flags(i)...)
		p := binserver.Start(t, bin, args...)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("replica %d's log:\n%s", i+1, p.Stderr)
			}
		})
		c.replicas = append(c.replicas, p)
		addrs[i] = strings.TrimPrefix(p.HTTP(), "http://")
	}
	c.lb = haproxytest.Start(t, hp, addrs)
	c.lb.WaitUp(t, n)
	return c
}

// replicaID is replica i's --replica-id.
func replicaID(i int) string { return fmt.Sprintf("r%d", i+1) }

// started is a replica's sqlgym_episodes_started_total.
func started(t *testing.T, p *binserver.Process) float64 {
	return metricstest.Scrape(t, p.HTTP()+"/metrics", "sqlgym_episodes_started_total")
}

// plainRun plays the driver's episodes on one plain server of bin (its
// trajectories in a file log): the rewards a failover must not change.
func plainRun(t *testing.T, d driver, bin string) driverLog {
	p := binserver.Start(t, bin, "--data-dir", t.TempDir(), "--log-level", "warn")
	defer p.Stop(t)
	return d.run(t, p.URL, 0, nil)
}
