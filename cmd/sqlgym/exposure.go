package main

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/transport"
)

// checkExposure is serve's protected mode: an address other than a
// loopback one, without a token, would answer anyone who can reach it, so
// it is refused unless insecure is set, and then logged as a warning.
func checkExposure(addr, token string, insecure bool, log *zap.Logger) error {
	if token != "" || transport.LoopbackAddr(addr) {
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
