package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/bench"
)

// benchFlags are the flags of sqlgym bench.
type benchFlags struct {
	stack    stackFlags // for the in-process server; with --url, for the dataset and engine of --script gold and --baseline
	cfg      bench.Config
	out      string
	logLevel string
	profile  profileFlags
	baseline baselineFlags
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchFlags(args, stderr)
	if err != nil {
		return err
	}
	if isTerminal(stderr) {
		f.cfg.Progress = stderr
	}
	var rep *bench.Report
	err = withProfile(&f.profile, func() (err error) {
		if f.cfg.URL != "" {
			rep, err = benchRemote(ctx, f)
		} else {
			rep, err = benchInProcess(ctx, f, stderr)
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeBenchReport(rep, f.out, stdout)
}

func parseBenchFlags(args []string, stderr io.Writer) (*benchFlags, error) {
	fs := newFlagSet("bench", stderr)
	var f benchFlags
	f.stack.register(fs)
	dataDir := fs.Lookup("data-dir")
	dataDir.Usage, dataDir.DefValue, f.stack.dataDir = "in-process server: where trajectories are recorded (empty: a temporary folder, removed after the run)", "", ""
	fs.Lookup("dataset").Usage = "with --url: the NAME of the served dataset tasks are drawn from (default: the server's first), " +
		"or, for --script gold and --baseline, the very `[NAME=]FORMAT:PATH` the server serves, loaded here for its golds (checked against tasks.list); " +
		"without --url: the dataset to serve, as for serve (default: the embedded demo)"
	c := &f.cfg
	fs.StringVar(&c.URL, "url", "", "server to load, ws://HOST:PORT/v1/ws on this machine (empty: start one in this process on 127.0.0.1 with the stack flags)")
	fs.StringVar(&c.Token, "token", "", "bearer token of the server at --url (without --url: the in-process server's; empty: a random one)")
	fs.IntVar(&c.Sockets, "sockets", 4, "WebSockets opened")
	fs.IntVar(&c.EpisodesPerSocket, "episodes-per-socket", 256, "episodes in flight on each socket")
	fs.DurationVar(&c.Duration, "duration", 0, "start episodes for this long, then let those in flight finish (default 30s unless --episodes is given)")
	fs.Int64Var(&c.Episodes, "episodes", 0, "start this many episodes in all (0: bounded by --duration only)")
	fs.StringVar(&c.Script, "script", bench.ScriptMixed, "what each episode plays: "+strings.Join(bench.Scripts(), ", "))
	fs.Int64Var(&c.Seed, "seed", 0, "task seed of the first episode; episode i draws with seed+i")
	fs.IntVar(&c.GoldRepeats, "gold-repeats", bench.DefaultGoldRepeats, "--script gold: execute_sql steps of the gold before it is submitted (1 to 63)")
	fs.Float64Var(&c.Rate, "rate", 0, "pace episode.step calls at this many per second over all episodes, open loop, latency timed from each step's scheduled time (0: closed loop, each step sent when its episode's last reply came)")
	f.baseline.register(fs)
	fs.StringVar(&f.out, "out", "", "also write the report as JSON to this `file`")
	fs.StringVar(&f.logLevel, "log-level", "warn", "in-process server: log level (to stderr): debug, info, warn or error")
	f.profile.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	return &f, f.check()
}

func (f *benchFlags) check() error {
	c := &f.cfg
	switch {
	case c.Sockets < 1 || c.EpisodesPerSocket < 1:
		return usageError{"--sockets and --episodes-per-socket must be at least 1"}
	case c.Duration < 0 || c.Episodes < 0:
		return usageError{"--duration and --episodes must not be negative"}
	case !slices.Contains(bench.Scripts(), c.Script):
		return usageError{fmt.Sprintf("--script must be one of %s, got %q", strings.Join(bench.Scripts(), ", "), c.Script)}
	case c.GoldRepeats < 1 || c.GoldRepeats > 63:
		return usageError{fmt.Sprintf("--gold-repeats must be between 1 and 63 (the turn budget is 64), got %d", c.GoldRepeats)}
	case c.Rate < 0:
		return usageError{"--rate must not be negative (0: closed loop)"}
	}
	if err := f.baseline.check(c.Script); err != nil {
		return err
	}
	if c.URL == "" {
		return nil
	}
	if err := bench.CheckURL(c.URL); err != nil {
		return usageError{fmt.Sprintf("--url: %v", err)}
	}
	return f.checkRemoteDataset()
}

// needsTasks reports whether the run needs the dataset's tasks on this
// side: the gold script's golds, the baseline's statements.
func (f *benchFlags) needsTasks() bool {
	return f.cfg.Script == bench.ScriptGold || f.baseline.on
}

// checkRemoteDataset checks --dataset with --url: at most one, a NAME or
// a spec, and a spec when the tasks are needed here.
func (f *benchFlags) checkRemoteDataset() error {
	vals := f.stack.datasets.values
	switch {
	case len(vals) > 1:
		return usageError{"with --url, give at most one --dataset: a dataset the server serves"}
	case len(vals) == 0 && f.needsTasks():
		return usageError{"with --url, --script gold and --baseline need --dataset [NAME=]FORMAT:PATH: the dataset the server serves, loaded here for its gold queries"}
	case len(vals) == 0:
		return nil
	}
	src, err := datasets.ParseSource(vals[0])
	switch {
	case err == nil:
		f.cfg.Dataset = src.Name
	case f.needsTasks() || strings.Contains(vals[0], ":"):
		return usageError{fmt.Sprintf("--dataset %q: %v (with --url, --script gold and --baseline need the spec the server serves)", vals[0], err)}
	default:
		f.cfg.Dataset = vals[0] // a name the server serves
	}
	return nil
}

// benchInProcess runs the benchmark against a server it starts on a
// loopback port, sized to admit every episode the run keeps in flight.
func benchInProcess(ctx context.Context, f *benchFlags, stderr io.Writer) (*bench.Report, error) {
	log, err := newLogger("console", f.logLevel, stderr)
	if err != nil {
		return nil, err
	}
	defer log.Sync()
	if f.stack.dataDir == "" {
		dir, err := os.MkdirTemp("", "sqlgym-bench-")
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		defer os.RemoveAll(dir)
		f.stack.dataDir = dir
	}
	opts := serverOpts{token: f.cfg.Token, maxEpisodes: max(4096, f.cfg.Sockets*f.cfg.EpisodesPerSocket),
		idleTimeout: episodes.DefaultIdleTimeout, frameBytes: transport.DefaultMaxFrameBytes, grace: 5 * time.Second, replyDelay: transport.DefaultReplyDelay}
	if opts.token == "" {
		opts.token = randomToken()
	}
	var rep *bench.Report
	err = serveLoopback(ctx, &f.stack, opts, log, func(url string, st *serveStack) error {
		cfg := f.cfg
		cfg.URL, cfg.Token, cfg.InProcess, cfg.Dataset = url, opts.token, true, st.Datasets[0].Name
		if f.needsTasks() {
			f.wireTasks(&cfg, st.Datasets[0], st.Catalog, st.Runner, st.Judge)
		}
		var err error
		rep, err = bench.Run(ctx, cfg)
		return err
	})
	return rep, err
}

// benchRemote runs the benchmark against the server at --url. For the
// gold script and the baseline it loads --dataset here, and the baseline
// runs on databases opened with the stack flags' engine settings, which
// should be the server's.
func benchRemote(ctx context.Context, f *benchFlags) (*bench.Report, error) {
	cfg := f.cfg
	if !f.needsTasks() {
		return bench.Run(ctx, cfg)
	}
	if err := f.stack.check(); err != nil {
		return nil, err
	}
	dss, err := f.stack.loadDatasets(ctx)
	if err != nil {
		return nil, err
	}
	catalog, runner, j := f.stack.engines(nil)
	defer catalog.Close()
	f.wireTasks(&cfg, dss[0], catalog, runner, j)
	return bench.Run(ctx, cfg)
}

// serveLoopback serves the stack on a loopback port, with opts, for as
// long as use runs, then shuts the server down.
func serveLoopback(ctx context.Context, s *stackFlags, opts serverOpts, log *zap.Logger, use func(url string, st *serveStack) error) error {
	type ready struct {
		url string
		st  *serveStack
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	up := make(chan ready, 1)
	done := make(chan error, 1)
	listen := func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
	go serverLabels(sctx, func(sctx context.Context) {
		done <- runServer(sctx, s, opts, log, listen, func(st *serveStack, ln net.Listener) {
			up <- ready{"ws://" + ln.Addr().String() + "/v1/ws", st}
		})
	})
	select {
	case err := <-done:
		return err
	case r := <-up:
		err := use(r.url, r.st)
		stop()
		if serr := <-done; err == nil {
			err = serr
		}
		return err
	}
}

func randomToken() string {
	key := make([]byte, 16)
	rand.Read(key)
	return hex.EncodeToString(key)
}

// writeBenchReport prints the report, writes it as JSON to out when set,
// and fails when calls failed (other than those an interrupt cut short).
func writeBenchReport(rep *bench.Report, out string, stdout io.Writer) error {
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	if out != "" {
		if err := rep.WriteJSONFile(out); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	if n := rep.UncanceledErrors(); n > 0 {
		return fmt.Errorf("bench: %d calls failed (see errors above)", n)
	}
	return nil
}
