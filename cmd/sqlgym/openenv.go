package main

import (
	"context"
	"flag"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/openenv"
	"github.com/sqlgym/sqlgym/episodes/transport"
)

// openenvPrefix is where the OpenEnv surface is mounted: an OpenEnv
// client's base_url is http://ADDR/openenv.
const openenvPrefix = "/openenv"

// registerOpenEnv adds serve's flags of the OpenEnv surface.
func (o *serverOpts) registerOpenEnv(fs *flag.FlagSet) {
	fs.IntVar(&o.openenvSessions, "max-openenv-sessions", openenv.DefaultMaxSessions,
		"OpenEnv sessions at once (WebSockets on /openenv/ws and episodes started by POST /openenv/reset), "+
			"shared fairly among clients (addresses); past a client's share, CAPACITY_REACHED")
}

// mountOpenEnv mounts the OpenEnv surface on cfg, over mgr, with the
// server's frame bound and keep-alive.
func mountOpenEnv(ctx context.Context, cfg *transport.ServerConfig, mgr *episodes.Manager, o serverOpts) {
	h := openenv.New(ctx, openenv.Config{
		Manager: mgr, Prefix: openenvPrefix, MaxFrameBytes: o.frameBytes, MaxSessions: o.openenvSessions,
		IdleTimeout: o.idleTimeout, PingInterval: cfg.PingInterval, PongWait: cfg.PongWait, WriteTimeout: cfg.WriteTimeout,
		Registry: mgr.Metrics().Registry,
	})
	cfg.Mounts = append(cfg.Mounts, transport.Mount{Prefix: openenvPrefix, Handler: h})
}
