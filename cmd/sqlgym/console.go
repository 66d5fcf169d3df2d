package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/console"
)

// consoleMount is the web console sqlgym serve carries under /ui, over
// the store it records to (read directly; live counts through its tap), with the datasets it
// serves for the golds. ok is false when the store cannot be read back.
func consoleMount(ctx context.Context, st *serveStack, mgr *episodes.Manager, live *console.Live, o serverOpts, log *zap.Logger) (transport.Mount, bool, error) {
	rd, ok := st.Recorder.(trajlog.Reader)
	if !ok {
		return transport.Mount{}, false, nil
	}
	cfg := console.Config{Store: consoleStore(ctx, rd, live, o.consoleIndex, log), Token: o.token, Logger: log, Live: live, Player: console.ManagerPlayer{M: mgr},
		Golds: &console.DatasetGolds{Catalog: st.Catalog, Datasets: st.Datasets, Judge: st.Judge}}
	o.console.apply(&cfg)
	c, err := console.New(cfg)
	if err != nil {
		return transport.Mount{}, false, err
	}
	return transport.Mount{Prefix: console.Prefix, Handler: c, OwnLogin: true}, true, nil
}

// consoleStore reads the PostgreSQL store through its indexes, the file
// log through the console's index of it (built in the background when a
// page first reads it, then kept current by live's tap when live is
// given), and a file of records by
// scanning it.
func consoleStore(ctx context.Context, rd trajlog.Reader, live *console.Live, indexMax int, log *zap.Logger) console.Store {
	switch st := rd.(type) {
	case *pgstore.Store:
		return console.PGStore{S: st}
	case *filelog.Log, *filelog.DamageKeeper:
		x := console.NewLogIndex(rd, indexMax)
		if live != nil {
			live.OnEnd(x.Ended)
		}
		x.BuildOnFirstUse(ctx, func(err error) {
			if ctx.Err() == nil {
				log.Warn("console: the list reads the log without an index", zap.Error(err))
			}
		})
		return x
	}
	return console.ReaderStore{R: rd}
}

// consoleFlags are the flags of sqlgym console.
type consoleFlags struct {
	stack       stackFlags // --data-dir, --trajectories, --dataset
	addr        string
	token       string
	insecure    bool
	maxSessions int
	maxConns    int
	indexMax    int
	bounds      consoleBounds
}

// runConsole serves the console read-only over a recorded log, with no
// episode server.
func runConsole(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("console", stderr)
	var f consoleFlags
	f.stack.registerLogReader(fs, "episode pages then show the gold and its result beside the submission")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8766", "address to listen on")
	fs.StringVar(&f.token, "token", "", "the token the login form asks for (empty: no login, allowed on a loopback --addr only)")
	fs.BoolVar(&f.insecure, "insecure", false, "serve without --token on a non-loopback --addr (logged as a warning)")
	fs.IntVar(&f.maxSessions, "max-sessions", console.DefaultMaxSessions, "logins kept at once; past it the oldest is dropped")
	f.bounds.register(fs, "")
	fs.IntVar(&f.maxConns, "max-connections", 64, "requests served at once; more get 503")
	fs.IntVar(&f.indexMax, "index-episodes", console.DefaultIndexEpisodes,
		"episodes of the file log the list's index keeps in memory (the newest; about 260 bytes each plus their SQL, up to 4 KiB); pages past them read the log")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.maxSessions < 1 || f.maxConns < 1 || f.indexMax < 1 {
		return usageError{"--max-sessions, --max-connections and --index-episodes must be at least 1"}
	}
	if err := f.bounds.check(""); err != nil {
		return err
	}
	log, err := newLogger("console", "info", stderr)
	if err != nil {
		return err
	}
	if err := checkExposure(f.addr, f.token, f.insecure, log); err != nil {
		return err
	}
	rd, closer, err := openTrajectoryReader(ctx, f.stack.trajectories, f.stack.dataDir)
	if err != nil {
		return err
	}
	defer closer.Close()
	cfg := console.Config{Store: consoleStore(ctx, rd, nil, f.indexMax, log), Token: f.token, Logger: log, LoopbackOnly: true, MaxSessions: f.maxSessions}
	f.bounds.apply(&cfg)
	if len(f.stack.datasets.values) > 0 {
		golds, err := f.consoleGolds(ctx)
		if err != nil {
			return err
		}
		defer golds.Catalog.Close()
		cfg.Golds = golds
	}
	c, err := console.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	fmt.Fprintf(stdout, "sqlgym %s console on http://%s%s/\n", version, ln.Addr(), console.Prefix)
	return serveConsole(ctx, ln, bounded(c, f.maxConns))
}

// consoleGolds loads the datasets --dataset names and opens their
// engines, with the judge its stack flags configure (the server's), for
// the episode page's gold beside its submission.
func (f *consoleFlags) consoleGolds(ctx context.Context) (*console.DatasetGolds, error) {
	if err := f.stack.engine.parse(); err != nil {
		return nil, err
	}
	dss, err := f.stack.loadDatasets(ctx)
	if err != nil {
		return nil, err
	}
	cat, _, j := f.stack.engines(nil)
	return &console.DatasetGolds{Catalog: cat, Datasets: dss, Judge: j}, nil
}

// serveConsole serves h on ln until ctx ends.
func serveConsole(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: transport.DefaultHeaderTimeout, IdleTimeout: transport.DefaultIdleConnTimeout}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// bounded serves at most n requests at once; more get 503.
func bounded(h http.Handler, n int) http.Handler {
	room := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case room <- struct{}{}:
			defer func() { <-room }()
			h.ServeHTTP(w, r)
		default:
			http.Error(w, fmt.Sprintf("busy: %d requests are being served, the console's --max-connections", n), http.StatusServiceUnavailable)
		}
	})
}
