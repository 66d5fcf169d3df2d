package main

import (
	"flag"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
)

// durabilityFlags say what an acknowledged episode end guarantees, for
// the trajectory log and the PostgreSQL store alike
// (docs/trajectories.md#durability).
type durabilityFlags struct {
	mode         trajlog.Durability
	syncInterval time.Duration
	commitDelay  time.Duration
}

func (d *durabilityFlags) register(fs *flag.FlagSet) {
	fs.TextVar(&d.mode, "durability", trajlog.DurabilityEpisode,
		"what an acknowledged episode end guarantees, `MODE`: episode (fsynced before the reply), interval (fsynced within --sync-interval; survives a crash of the server, not of the machine) or none (fsynced when a segment is sealed and at shutdown)")
	fs.DurationVar(&d.syncInterval, "sync-interval", filelog.DefaultSyncInterval,
		"with --durability interval: how often the trajectory log is fsynced")
	fs.DurationVar(&d.commitDelay, "commit-delay", filelog.DefaultCommitDelay,
		"with --durability episode: how long an episode end's fsync waits for more ends while other episodes are live, so that one fsync covers them all (0: none; the file log only)")
}

func (d *durabilityFlags) check() error {
	if d.syncInterval <= 0 {
		return usageError{"--sync-interval must be positive"}
	}
	if d.commitDelay < 0 || d.commitDelay > time.Second {
		return usageError{"--commit-delay must be between 0 and 1s, got " + d.commitDelay.String()}
	}
	return nil
}
