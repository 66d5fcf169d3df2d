package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym/episodes/rpc"
)

// connFlags are serve's bounds on TCP connections: how many may be open
// and how long one may sit idle or take to send its headers.
type connFlags struct {
	tcpConnections  int
	idleConnTimeout time.Duration
	headerTimeout   time.Duration
}

func (c *connFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&c.tcpConnections, "max-tcp-connections", rpc.DefaultMaxTCPConnections(),
		"TCP connections open at once, idle keep-alive ones and WebSockets included; past it a new one is closed at accept. "+
			"Its default is half the open-file limit (RLIMIT_NOFILE), at most 16384")
	fs.DurationVar(&c.idleConnTimeout, "idle-conn-timeout", rpc.DefaultIdleConnTimeout,
		"how long a keep-alive HTTP connection may wait for its next request before it is closed")
	fs.DurationVar(&c.headerTimeout, "header-timeout", rpc.DefaultHeaderTimeout,
		"how long a request's headers may take to arrive before its connection is closed")
}

// check refuses bounds that could not work: a connection bound the
// process's open-file limit cannot hold.
func (c *connFlags) check() error {
	if c.tcpConnections < 1 || c.idleConnTimeout <= 0 || c.headerTimeout <= 0 {
		return usageError{"--max-tcp-connections must be >= 1, --idle-conn-timeout and --header-timeout > 0"}
	}
	if limit, ok := rpc.OpenFileLimit(); ok && c.tcpConnections >= limit {
		return usageError{fmt.Sprintf("--max-tcp-connections (%d) must be below the process's open-file limit (%d, RLIMIT_NOFILE): "+
			"databases, the trajectory log and PostgreSQL connections need descriptors too; raise the limit (ulimit -n) or lower the bound",
			c.tcpConnections, limit)}
	}
	return nil
}

// apply sets the bounds in the server's config.
func (c *connFlags) apply(cfg *rpc.ServerConfig) {
	cfg.MaxTCPConnections, cfg.IdleConnTimeout, cfg.HeaderTimeout = c.tcpConnections, c.idleConnTimeout, c.headerTimeout
}
