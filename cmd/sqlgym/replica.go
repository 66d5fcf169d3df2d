package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
)

// replicaFlags are serve's flags for replicas sharing one PostgreSQL
// store (docs/deployment.md, "Replicas").
type replicaFlags struct {
	takeover bool
	leaseTTL time.Duration
	id       string
}

func (r *replicaFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&r.takeover, "takeover", false,
		"let any replica sharing the --trajectories postgres:// store serve any episode: a step for an episode another replica began is taken over from the store "+
			"(each reset and step is committed there before its reply; a drain hands live episodes back)")
	fs.DurationVar(&r.leaseTTL, "lease-ttl", pgstore.DefaultLeaseTTL,
		"with --takeover: how old a replica's heartbeat in the store may grow before its episodes may be taken over by another")
	fs.StringVar(&r.id, "replica-id", "", "with --takeover: this replica's name in the store (default: the host name and a random suffix, new at each start)")
}

// check refuses --takeover without a PostgreSQL store, and names the
// replica.
func (r *replicaFlags) check(trajectories string) error {
	if !r.takeover {
		return nil
	}
	if !isPostgresURL(trajectories) {
		return usageError{"--takeover needs --trajectories postgres://...: the store the replicas share"}
	}
	if r.leaseTTL < 300*time.Millisecond {
		return usageError{fmt.Sprintf("--lease-ttl must be at least 300ms, got %v", r.leaseTTL)}
	}
	if r.id == "" {
		host, _ := os.Hostname()
		var b [4]byte
		rand.Read(b[:])
		r.id = host + "-" + hex.EncodeToString(b[:])
	}
	return nil
}

// replica is the pgstore replica id: empty without --takeover.
func (r *replicaFlags) replica() string {
	if !r.takeover {
		return ""
	}
	return r.id
}
