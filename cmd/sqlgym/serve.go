package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/jsonrpc"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/schemas"
)

// serveFlags are the flags of sqlgym serve.
type serveFlags struct {
	stack     stackFlags
	server    serverOpts
	addr      string
	insecure  bool
	logFormat string
	logLevel  string
	profile   profileFlags
}

// serverOpts are the settings of an episode server beyond its stack.
type serverOpts struct {
	token        string
	maxEpisodes  int
	idleTimeout  time.Duration
	frameBytes   int64
	grace        time.Duration
	replyDelay   time.Duration
	bounds       clientBounds
	conns        connFlags
	consoleLive  int // live pages of the web console at once
	consoleIndex int // episodes of the file log the console's list index keeps
	console      consoleBounds
	// openenvSessions bounds the OpenEnv surface's sessions (0: its default).
	openenvSessions int
	mcp             mcpFlags
	ready           readyFlags
	// drain has a stopping server serve its live episodes until they end
	// or the grace passes (sqlgym serve); without it (the loopback
	// servers of repl and bench, whose one client has gone) it stops at once.
	drain bool
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, f := newServeFlags(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.server.check(); err != nil {
		return err
	}
	if err := f.server.conns.check(); err != nil {
		return err
	}
	if f.server.openenvSessions < 1 {
		return usageError{"--max-openenv-sessions must be >= 1"}
	}
	if err := f.server.mcp.check(); err != nil {
		return err
	}
	if err := f.server.ready.check(); err != nil {
		return err
	}
	log, err := newLogger(f.logFormat, f.logLevel, stderr)
	if err != nil {
		return err
	}
	defer log.Sync()
	if err := checkExposure(f.addr, f.server.token, f.insecure, log); err != nil {
		return err
	}
	f.server.conns.exposed(f.addr, f.server.token, log)
	return withProfile(&f.profile, func() error { return serve(ctx, f, log, stdout) })
}

// newServeFlags is serve's flag set, and the flags it sets.
func newServeFlags(stderr io.Writer) (*flag.FlagSet, *serveFlags) {
	fs := newFlagSet("serve", stderr)
	var f serveFlags
	f.stack.register(fs)
	f.stack.replica.register(fs)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8765", "address to listen on")
	fs.StringVar(&f.server.token, "token", "", "bearer token clients must send (empty: no authentication, allowed on a loopback --addr only)")
	fs.BoolVar(&f.insecure, "insecure", false, "serve without --token on a non-loopback --addr (logged as a warning)")
	fs.IntVar(&f.server.maxEpisodes, "max-episodes", episodes.DefaultMaxEpisodes,
		"live episodes at once, shared fairly among clients (addresses), a backstop: --max-live-bytes bounds their memory; "+
			"a reset past its client's share gets error -32003")
	fs.DurationVar(&f.server.idleTimeout, "idle-timeout", episodes.DefaultIdleTimeout, "idle time after which an episode is abandoned")
	bytesVar(fs, &f.server.frameBytes, "max-frame-bytes", transport.DefaultMaxFrameBytes, "largest WebSocket frame or HTTP body accepted")
	fs.DurationVar(&f.server.grace, "shutdown-grace", 30*time.Second,
		"how long a server told to stop (SIGTERM) drains: it refuses new episodes and serves its live ones' steps until none is live or this passes; then the live ones end as abandoned, recorded")
	fs.DurationVar(&f.server.replyDelay, "reply-delay", transport.DefaultReplyDelay,
		"how long a reply may wait for those of the other requests its WebSocket is running, so that one write sends them together (0: never waits)")
	fs.IntVar(&f.server.consoleLive, "console-max-live", console.DefaultMaxLiveSubscribers,
		"live pages of the web console (/ui/live) connected at once, shared fairly among clients (addresses); past a client's share, 503")
	fs.IntVar(&f.server.consoleIndex, "console-index-episodes", console.DefaultIndexEpisodes,
		"episodes of the file log the web console's list index keeps in memory (the newest); its pages past them read the log")
	f.server.console.register(fs, "console-")
	f.server.bounds.register(fs)
	f.server.conns.register(fs)
	f.server.registerOpenEnv(fs)
	f.server.mcp.register(fs)
	f.server.ready.register(fs)
	fs.StringVar(&f.logFormat, "log-format", "console", "log format: json or console")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.profile.register(fs)
	return fs, &f
}

func (o *serverOpts) check() error {
	if o.maxEpisodes < 1 || o.idleTimeout <= 0 || o.frameBytes < 1024 || o.consoleLive < 1 || o.consoleIndex < 1 {
		return usageError{"--max-episodes, --console-max-live and --console-index-episodes must be >= 1, --idle-timeout > 0 and --max-frame-bytes >= 1024"}
	}
	if err := o.console.check("console-"); err != nil {
		return err
	}
	if o.replyDelay < 0 || o.replyDelay > time.Second {
		return usageError{fmt.Sprintf("--reply-delay must be between 0 and 1s, got %s", o.replyDelay)}
	}
	return o.bounds.check(o.frameBytes)
}

// replyDelay is --reply-delay as the server takes it: 0 there means the
// default, a negative delay none.
func replyDelay(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

func serve(ctx context.Context, f *serveFlags, log *zap.Logger, stdout io.Writer) error {
	listen := func() (net.Listener, error) { return net.Listen("tcp", f.addr) }
	f.server.drain = true
	return runServer(ctx, &f.stack, f.server, log, listen, func(st *serveStack, ln net.Listener) {
		fmt.Fprint(stdout, banner(datasetNames(st.Datasets), ln.Addr().String(), f.server.token != "", st.judging))
	})
}

// banner is what serve prints once it listens: where clients connect,
// the HTTP endpoints, and the command that attaches a REPL. The first
// line, with the WebSocket URL, is the one scripts look for.
func banner(datasets, addr string, token bool, judging string) string {
	repl := "sqlgym repl --url ws://" + addr + "/v1/ws"
	if token {
		repl += " --token TOKEN"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sqlgym %s serving %s on ws://%s/v1/ws\n", version, datasets, addr)
	fmt.Fprintf(&b, "  JSON-RPC over HTTP  POST http://%s/v1/rpc\n", addr)
	fmt.Fprintf(&b, "  MCP (Streamable)    POST http://%s/mcp\n", addr)
	fmt.Fprintf(&b, "  health              GET  http://%s/healthz\n", addr)
	fmt.Fprintf(&b, "  readiness           GET  http://%s/readyz\n", addr)
	fmt.Fprintf(&b, "  metrics             GET  http://%s/metrics\n", addr)
	fmt.Fprintf(&b, "  OpenEnv base_url    http://%s%s\n", addr, openenvPrefix)
	fmt.Fprintf(&b, "  web console         GET  http://%s/ui/\n", addr)
	fmt.Fprintf(&b, "  attach a REPL       %s\n", repl)
	fmt.Fprintf(&b, "  judging             %s\n", judging)
	return b.String()
}

// runServer builds the stack, its episode manager and server, listens,
// calls ready once the listener is open, and serves until ctx ends; then
// it drains (shutdown.go): new episodes are refused and live ones served
// until none is left or the grace period has passed; running steps
// finish within what is left of it, and the episodes still live end as
// abandoned and are recorded.
func runServer(ctx context.Context, s *stackFlags, o serverOpts, log *zap.Logger,
	listen func() (net.Listener, error), ready func(*serveStack, net.Listener)) error {
	s.tools.index.closeTimeout = o.grace
	st, err := s.build(ctx, log)
	if err != nil {
		return err
	}
	defer st.close(log)
	live := console.NewLive(console.LiveConfig{MaxSubscribers: o.consoleLive})
	mgr, err := newManager(st, s, o, log, live.Tap)
	if err != nil {
		return err
	}
	limits := s.limits()
	limits.MaxFrameBytes = o.frameBytes
	o.bounds.report(&limits)
	cfg := transport.ServerConfig{
		Dispatcher: jsonrpc.NewDispatcher(mgr, limits), Registry: mgr.Metrics().Registry,
		Logger: log, Token: o.token, MaxFrameBytes: o.frameBytes,
		MaxConnBytes: o.bounds.connBytes, StallTimeout: o.bounds.stallTimeout,
		MaxReadingBytes: o.bounds.readingBytes, MaxConnections: o.bounds.connections,
		ReplyDelay: replyDelay(o.replyDelay),
	}
	o.conns.apply(&cfg)
	cfg.Ready = readyChecks(st, o.ready)
	dr := newDrainer(ctx)
	defer dr.stop()
	serving := dr.serving // the surfaces serve on through the drain (shutdown.go)
	mountOpenEnv(serving, &cfg, mgr, o)
	mcpSrv := o.mcp.server(mgr, o.frameBytes, log)
	cfg.Mounts = append(cfg.Mounts, transport.Mount{Prefix: "/mcp", Handler: mcpSrv.Handler()})
	defer context.AfterFunc(serving, func() { mcpSrv.Close(dr.rest()) })() // an HTTP shutdown leaves sessions' streams open
	if m, ok, err := consoleMount(serving, st, mgr, live, o, log); err != nil {
		return err
	} else if ok {
		cfg.Mounts = append(cfg.Mounts, m)
	}
	srv := transport.NewServer(ctx, cfg)
	ln, err := listen()
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	expiry, stopExpiry := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { defer close(done); mgr.Run(expiry) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	go live.Run(expiry, tick.C)
	go dr.run(ctx, mgr, srv, o, log)
	ready(st, ln)
	log.Info("serving", zap.String("addr", ln.Addr().String()), zap.Int("datasets", len(st.Datasets)))
	err = srv.ServeGrace(serving, ln, dr.rest)
	stopExpiry()
	<-done
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordBudget)
	defer cancel()
	mgr.Shutdown(sctx) // the episodes still live end as abandoned, recorded
	log.Info("stopped")
	return err
}

// newManager builds the episode manager of a server over st (its
// recorder seen through tap, when given): sqlgym
// serve's, and sqlgym mcp's.
func newManager(st *serveStack, s *stackFlags, o serverOpts, log *zap.Logger, tap func(trajlog.Writer) trajlog.Writer) (*episodes.Manager, error) {
	mc := st.Config()
	if tap != nil {
		mc.Recorder = tap(mc.Recorder) // the web console's live counts
	}
	mc.Logger, mc.Version, mc.TrajectoryStore = log, version, s.storeDescription()
	mc.MaxTurns, mc.MaxCallsPerTurn, mc.PromptDescriptions = s.maxTurns, s.maxCalls, s.promptDescriptions
	mc.MaxEpisodes, mc.IdleTimeout = o.maxEpisodes, o.idleTimeout
	mc.MaxTagsBytes, mc.RecentEpisodes, mc.RecentBytes = o.bounds.tagsBytes, o.bounds.recentEpisodes, o.bounds.recentBytes
	mc.MaxEpisodeBytes, mc.MaxLiveBytes = o.bounds.episodeBytes, o.bounds.liveBytes
	mc.Tools, mc.DatasetTools = s.tools.set, s.tools.datasets
	mc.PromptStyle, mc.DatasetPromptStyles = s.promptStyle.style, s.promptStyle.byDataset
	if s.replica.takeover {
		mc.Shared, _ = st.Recorder.(trajlog.Shared) // the PostgreSQL store replica.check asked for
	}
	mgr, err := episodes.New(mc)
	if err != nil {
		return nil, err
	}
	st.RegisterSearchMetrics(mgr.Metrics().Registry)
	return mgr, nil
}

// limits are the bounds server.info reports.
func (s *stackFlags) limits() schemas.Limits {
	return schemas.Limits{
		QueryTimeoutMS: float64(s.queryTimeout.Milliseconds()), GoldTimeoutMS: float64(s.goldTimeout.Milliseconds()),
		RowLimit: s.rowLimit, ObservationBytes: s.observationBytes,
	}
}

// newLogger builds the process's one logger, writing to w.
func newLogger(format, level string, w io.Writer) (*zap.Logger, error) {
	lvl, err := zap.ParseAtomicLevel(level)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--log-level: %v", err)}
	}
	var enc zapcore.Encoder
	switch format {
	case "json":
		enc = zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	case "console":
		enc = zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	default:
		return nil, usageError{fmt.Sprintf("--log-format must be json or console, got %q", format)}
	}
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(zapcore.AddSync(w)), lvl)), nil
}
