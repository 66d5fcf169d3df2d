package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym/episodes/transport"
)

// readyFlags bound GET /readyz's checks.
type readyFlags struct {
	interval time.Duration
	timeout  time.Duration
}

func (r *readyFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&r.interval, "ready-interval", transport.DefaultReadyInterval,
		"how long GET /readyz (and the sqlgym_ready gauge) reuses a round of its checks before running them again")
	fs.DurationVar(&r.timeout, "ready-timeout", transport.DefaultReadyTimeout,
		"how long each of GET /readyz's checks (trajectory store, engine servers, SQLite files) may take before it fails")
}

func (r *readyFlags) check() error {
	if r.interval <= 0 || r.timeout <= 0 {
		return usageError{fmt.Sprintf("--ready-interval and --ready-timeout must be > 0, got %s and %s", r.interval, r.timeout)}
	}
	return nil
}

// readyChecks are the checks of GET /readyz over st (its ReadyChecks),
// bounded by the flags.
func readyChecks(st *serveStack, r readyFlags) transport.ReadyConfig {
	return transport.ReadyConfig{Interval: r.interval, Timeout: r.timeout, Checks: st.ReadyChecks()}
}
