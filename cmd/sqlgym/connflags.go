package main

import (
	"flag"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/transport"
)

// connFlags are serve's bounds on TCP connections (how many may be open,
// how long one may sit idle or take to send its headers) and, without a
// token, the web origins and host names it answers besides loopback ones.
type connFlags struct {
	tcpConnections  int
	idleConnTimeout time.Duration
	headerTimeout   time.Duration
	origins         listFlag
	hosts           listFlag
	addrHosts       []string // the host of a non-loopback --addr served without a token
	anyIPHost       bool     // --insecure: any IP address is a Host
}

func (c *connFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&c.tcpConnections, "max-tcp-connections", transport.DefaultMaxTCPConnections(),
		"TCP connections open at once, idle keep-alive ones and WebSockets included; past it a new one is closed at accept. "+
			"Its default is half the open-file limit (RLIMIT_NOFILE), at most 16384")
	fs.DurationVar(&c.idleConnTimeout, "idle-conn-timeout", transport.DefaultIdleConnTimeout,
		"how long a keep-alive HTTP connection may wait for its next request before it is closed")
	fs.DurationVar(&c.headerTimeout, "header-timeout", transport.DefaultHeaderTimeout,
		"how long a request's headers may take to arrive before its connection is closed")
	fs.Var(&c.origins, "allowed-origins", "without --token, a web page origin (scheme://host[:port]) whose requests are served besides "+
		"loopback ones, e.g. a web console's (repeatable or comma-separated; default: loopback origins only)")
	fs.Var(&c.hosts, "allowed-hosts", "without --token, a host name clients may address the server by besides localhost and "+
		"loopback addresses (repeatable or comma-separated; --insecure adds any IP address and the host of --addr)")
}

// check refuses bounds that could not work: a connection bound the
// process's open-file limit cannot hold.
func (c *connFlags) check() error {
	if c.tcpConnections < 1 || c.idleConnTimeout <= 0 || c.headerTimeout <= 0 {
		return usageError{"--max-tcp-connections must be >= 1, --idle-conn-timeout and --header-timeout > 0"}
	}
	for _, o := range c.originList() {
		if err := checkOrigin(o); err != nil {
			return err
		}
	}
	for _, h := range c.hostList() {
		if _, _, err := net.SplitHostPort(h); err == nil || h == "" || strings.ContainsAny(h, "/@?#") {
			return usageError{fmt.Sprintf("--allowed-hosts %q: give a host name or address without a scheme, path or port, e.g. gpu-box.lan", h)}
		}
	}
	if limit, ok := transport.OpenFileLimit(); ok && c.tcpConnections >= limit {
		return usageError{fmt.Sprintf("--max-tcp-connections (%d) must be below the process's open-file limit (%d, RLIMIT_NOFILE): "+
			"databases, the trajectory log and PostgreSQL connections need descriptors too; raise the limit (ulimit -n) or lower the bound",
			c.tcpConnections, limit)}
	}
	return nil
}

// checkOrigin refuses an --allowed-origins value that no browser sends.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return usageError{fmt.Sprintf("--allowed-origins %q: an origin is scheme://host[:port] as a browser sends it, "+
			"e.g. https://console.example.com or http://10.0.0.5:3000", o)}
	}
	return nil
}

// exposed notes where the server listens and whether it has a token.
// Without one on an address that is not loopback (--insecure), clients
// reach it by an IP address or by the name in addr, and the Host check
// lets both through. With a token the allowed origins and hosts have no
// use: that is logged.
func (c *connFlags) exposed(addr, token string, log *zap.Logger) {
	if token != "" && len(c.origins.values)+len(c.hosts.values) > 0 {
		log.Warn("--allowed-origins and --allowed-hosts have no effect with --token: every client that sends the token is served")
	}
	if token != "" || transport.LoopbackAddr(addr) {
		return
	}
	c.anyIPHost = true
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" && net.ParseIP(host) == nil {
		c.addrHosts = []string{host}
	}
}

// originList and hostList are the flags' values, a comma-separated one
// split.
func (c *connFlags) originList() []string { return splitList(c.origins.values) }
func (c *connFlags) hostList() []string   { return splitList(c.hosts.values) }

func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// apply sets the bounds and the allowed origins and hosts in the
// server's config.
func (c *connFlags) apply(cfg *transport.ServerConfig) {
	cfg.MaxTCPConnections, cfg.IdleConnTimeout, cfg.HeaderTimeout = c.tcpConnections, c.idleConnTimeout, c.headerTimeout
	cfg.AllowedOrigins = c.originList()
	cfg.AllowedHosts = append(c.hostList(), c.addrHosts...)
	cfg.AllowIPHosts = c.anyIPHost
}
