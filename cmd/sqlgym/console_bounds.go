package main

import (
	"flag"
	"time"

	"github.com/sqlgym/sqlgym/internal/app/console"
)

// consoleBounds are the web console's bounds on what a browser can make
// it hold, registered with a prefix ("console-" on serve, "" on sqlgym
// console).
type consoleBounds struct {
	reports       int
	writeTimeout  time.Duration
	loginFailures int
}

func (b *consoleBounds) register(fs *flag.FlagSet, prefix string) {
	fs.IntVar(&b.reports, prefix+"max-reports", console.DefaultMaxReports,
		"web console report pages computed at once (each reads the whole store); more get 503")
	fs.DurationVar(&b.writeTimeout, prefix+"write-timeout", console.DefaultWriteTimeout,
		"how long the web console may take to write one page to a browser before the request is cut")
	fs.IntVar(&b.loginFailures, prefix+"login-failures", console.DefaultLoginFailures,
		"wrong tokens the web console's login form takes a minute from each client address; past them that address's logins get 429 for a while")
}

func (b *consoleBounds) check(prefix string) error {
	if b.reports < 1 || b.writeTimeout <= 0 || b.loginFailures < 1 {
		return usageError{"--" + prefix + "max-reports and --" + prefix + "login-failures must be >= 1, --" + prefix + "write-timeout > 0"}
	}
	return nil
}

// apply sets the bounds on cfg.
func (b *consoleBounds) apply(cfg *console.Config) {
	cfg.MaxReports, cfg.WriteTimeout, cfg.LoginFailures = b.reports, b.writeTimeout, b.loginFailures
}
