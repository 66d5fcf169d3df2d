package main

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/tools"
)

// TestStackFlagDefaultsAreTheLibraries: a flag left unset gives the
// library the value it would take by itself, its own default constant.
func TestStackFlagDefaultsAreTheLibraries(t *testing.T) {
	s := parseStack(t)
	for _, c := range []struct {
		flag      string
		got, want any
	}{
		{"max-turns", s.maxTurns, episodes.DefaultMaxTurns},
		{"max-calls-per-turn", s.maxCalls, episodes.DefaultMaxCallsPerTurn},
		{"query-timeout", s.queryTimeout, tools.DefaultQueryTimeout},
		{"submit-timeout", s.submitTimeout, judge.DefaultTimeout},
		{"gold-timeout", s.goldTimeout, judge.DefaultTimeout},
		{"row-limit", s.rowLimit, tools.DefaultRowLimit},
		{"observation-bytes", s.observationBytes, tools.DefaultObservationBytes},
		{"schema-cache-bytes", s.schemaCacheBytes, tools.DefaultSchemaCacheBytes},
		{"db-conns", s.dbConns, sqlite.DefaultMaxConns},
		{"db-running", s.dbRunning, sqlite.DefaultMaxRunning},
		{"db-open-max", s.dbOpenMax, sqlite.DefaultMaxOpenDBs},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) { // of different integer types
			t.Errorf("--%s defaults to %v, the library's default is %v", c.flag, c.got, c.want)
		}
	}
}

// TestOfflineFlagDefaultsAreServes: replay and rescore take serve's
// defaults for the flags they share with it.
func TestOfflineFlagDefaultsAreServes(t *testing.T) {
	serve := newFlagSet("serve", &strings.Builder{})
	new(stackFlags).register(serve)
	offline := newFlagSet("replay", &strings.Builder{})
	var s stackFlags
	registerOffline(offline, &s)
	n := 0
	offline.VisitAll(func(f *flag.Flag) {
		if g := serve.Lookup(f.Name); g != nil {
			n++
			if f.DefValue != g.DefValue {
				t.Errorf("--%s: replay's default %q, serve's %q", f.Name, f.DefValue, g.DefValue)
			}
		}
	})
	if n < 10 {
		t.Errorf("%d flags shared with serve, want at least 10", n)
	}
	if s.maxTurns != episodes.DefaultMaxTurns {
		t.Errorf("offline turn budget %d, want %d", s.maxTurns, episodes.DefaultMaxTurns)
	}
}
