package main

import (
	"fmt"
	"net"
	"strings"

	"go.uber.org/zap"
)

// checkExposure is serve's protected mode: an address other than a
// loopback one, without a token, would answer anyone who can reach it, so
// it is refused unless insecure is set, and then logged as a warning.
func checkExposure(addr, token string, insecure bool, log *zap.Logger) error {
	if token != "" || loopbackAddr(addr) {
		return nil
	}
	if !insecure {
		return usageError{fmt.Sprintf("refusing to serve on %s without a token: it is not a loopback address, "+
			"so anyone who can reach it could run episodes and read every database. "+
			"Set --token (or SQLGYM_TOKEN) to require one, listen on a loopback address (--addr 127.0.0.1:PORT), "+
			"or pass --insecure (SQLGYM_INSECURE=true) to serve without authentication anyway", addr)}
	}
	log.Warn("serving without authentication on a non-loopback address (--insecure)", zap.String("addr", addr))
	return nil
}

// loopbackAddr reports whether a host:port address listens on the
// loopback interface only: 127.0.0.0/8, ::1 or "localhost". An empty host
// (":8765") listens on every interface; any other name is taken as
// reachable from outside.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	host, _, _ = strings.Cut(host, "%") // an IPv6 zone
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
