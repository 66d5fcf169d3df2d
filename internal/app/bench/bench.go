// Package bench is the load generator behind sqlgym bench. It drives many
// scripted episodes at once over a few WebSockets to an episode server on
// this machine, as an RL trainer's workers do, closed loop or paced at a
// fixed rate, and reports what the server sustained: episodes and steps
// per second, per-method latency, errors by code and outcomes, the
// server's CPU per step and memory (read from its /metrics), and the
// ratio of its SQL steps per second to a baseline the caller measures.
// It talks to the server through episodes/client (and /metrics) only.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// Scripts: the policies an episode can play.
const (
	ScriptMixed   = "mixed"   // inspect_schema, execute_sql, then submit as a text action
	ScriptSubmit  = "submit"  // submit a fixed query at once
	ScriptExplore = "explore" // inspect everything and one table, two queries, then submit
	ScriptGold    = "gold"    // execute_sql of the task's gold GoldRepeats times, then submit it
)

// Scripts lists the scripts, in the order help shows them.
func Scripts() []string { return []string{ScriptMixed, ScriptSubmit, ScriptExplore, ScriptGold} }

// TagKey and TagValue mark every episode the bench plays: its reset's
// tags hold "bench": true, beside "source": "sqlgym bench" and the
// script's name, so that replay, rescore and export leave bench traffic
// out of a training run's data with --exclude-tag bench=true.
const (
	TagKey   = "bench"
	TagValue = "true"
)

// DefaultGoldRepeats is how many times the gold script runs the gold
// before submitting it.
const DefaultGoldRepeats = 4

// Task is one task of the dataset the episodes draw from, as the caller
// loaded it: gold SQL never crosses the wire, so the gold script takes its
// golds from here. Run checks the ids, in order, against the server's
// tasks.list.
type Task struct {
	ID      string
	GoldSQL string
}

// Baseline is what running the episodes' statements in process, through
// the engine alone, measured: the rate the report compares the server's
// SQL steps with.
type Baseline struct {
	Statements int64   `json:"statements"` // statements run to the end
	Errors     int64   `json:"errors"`     // statements that failed (not counted above)
	Workers    int     `json:"workers"`    // goroutines running them
	Elapsed    float64 `json:"elapsed_s"`
	PerS       float64 `json:"statements_per_s"`
	// CPU is this process's CPU time (user and system) while the baseline
	// ran, set by Run; CPUPerStatementUS is it over Statements: what a
	// statement itself costs, which the server's CPU per step is compared
	// with.
	CPU               float64 `json:"cpu_s"`
	CPUPerStatementUS float64 `json:"cpu_per_statement_us"`
}

// ErrNotLoopback is returned for a server URL whose host is not this
// machine: the benchmark measures a server, not a network.
var ErrNotLoopback = errors.New("bench: the server must be on a loopback address (127.0.0.1, ::1 or localhost)")

// Config configures a run. Zero values mean the defaults in brackets.
type Config struct {
	URL               string        // the server's WebSocket endpoint, ws://HOST:PORT/v1/ws, HOST a loopback address
	Token             string        // bearer token, when the server needs one
	Sockets           int           // sockets opened (4)
	EpisodesPerSocket int           // episodes in flight on each socket (256)
	Duration          time.Duration // no episode starts after this long; in-flight ones finish
	Episodes          int64         // no more episodes than this start; with neither bound, Duration is 30s
	Dataset           string        // dataset tasks are drawn from (the server's default)
	Script            string        // what each episode plays (mixed)
	Seed              int64         // seed of the first episode's task; episode i uses Seed+i
	CallTimeout       time.Duration // bound on one call (1m)
	Progress          io.Writer     // when set, gets a progress line (ending in \r) every ProgressEvery
	ProgressEvery     time.Duration // (1s)
	InProcess         bool          // the server runs in this process, so the CPU time reported is its too

	// GoldRepeats is how many execute_sql steps of the gold the gold
	// script takes before it submits the gold (DefaultGoldRepeats).
	GoldRepeats int
	// Tasks are the tasks of Dataset, in the server's order, with their
	// golds: needed by the gold script, checked against tasks.list.
	Tasks []Task
	// Rate, when above 0, paces episode.step calls at this many per second
	// over all episodes, open loop: each step has a scheduled send time,
	// is sent when it comes (when its episode is free to step), and its
	// latency is timed from it. 0 sends each step when its episode's last
	// reply came (closed loop).
	Rate float64
	// Baseline, when set, runs right before the episodes (after the
	// sockets are open and the tasks checked); the report divides the
	// server's SQL steps per second by its rate.
	Baseline func(ctx context.Context) (*Baseline, error)
	// MetricsEvery is how often the server's /metrics is read during the
	// run, for its peak memory (500ms).
	MetricsEvery time.Duration
}

func (c *Config) setDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Sockets, 4)
	def(&c.EpisodesPerSocket, 256)
	if c.Duration <= 0 && c.Episodes <= 0 {
		c.Duration = 30 * time.Second
	}
	if c.Script == "" {
		c.Script = ScriptMixed
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = time.Minute
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = time.Second
	}
	if c.GoldRepeats <= 0 {
		c.GoldRepeats = DefaultGoldRepeats
	}
	if c.MetricsEvery <= 0 {
		c.MetricsEvery = 500 * time.Millisecond
	}
}

func (c *Config) check() error {
	if !slices.Contains(Scripts(), c.Script) {
		return fmt.Errorf("bench: unknown script %q (want one of %s)", c.Script, strings.Join(Scripts(), ", "))
	}
	if c.Rate < 0 {
		return fmt.Errorf("bench: rate %v: want a positive number of steps/s, or 0 for none", c.Rate)
	}
	if c.Script == ScriptGold {
		if len(c.Tasks) == 0 {
			return errors.New("bench: the gold script needs the dataset's tasks with their golds")
		}
		for _, t := range c.Tasks {
			if t.GoldSQL == "" {
				return fmt.Errorf("bench: the gold script needs a gold query for every task; %s has none", t.ID)
			}
		}
	}
	return CheckURL(c.URL)
}

// CheckURL reports whether raw is a ws:// or wss:// URL on a loopback
// address; ErrNotLoopback when it is on another host.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("bench: url: %w", err)
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return fmt.Errorf("bench: url %q: want ws://HOST:PORT/v1/ws", raw)
	}
	if host := u.Hostname(); host != "localhost" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("%w: %q", ErrNotLoopback, host)
		}
	}
	return nil
}

// Run drives episodes against the server at cfg.URL until a bound is
// reached (or ctx ends), waits for the episodes in flight, and reports.
// Before the episodes it checks cfg.Tasks against the server's and runs
// cfg.Baseline. Failed calls are counted in the report, not returned: the
// error is for a run that could not start (a bad config, a socket that
// would not open, tasks that are not the server's, a failed baseline).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.setDefaults()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	ctl, err := client.Dial(ctx, cfg.URL, cfg.Token)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer ctl.Close()
	streams, err := dialAll(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ictx, cancel := context.WithTimeout(ctx, cfg.CallTimeout)
	before, err := ctl.Info(ictx)
	cancel()
	if err != nil {
		abortAll(streams)
		return nil, fmt.Errorf("bench: server.info: %w", err)
	}
	if err := checkTasks(ctx, ctl, &cfg, before); err != nil {
		abortAll(streams)
		return nil, err
	}
	base, err := runBaseline(ctx, cfg)
	if err != nil {
		abortAll(streams)
		return nil, err
	}
	rep := drive(ctx, cfg, streams)
	rep.setBaseline(base)
	ictx, cancel = context.WithTimeout(context.WithoutCancel(ctx), cfg.CallTimeout)
	defer cancel()
	if after, err := ctl.Info(ictx); err == nil {
		rep.Server = serverDelta(&before.Stats, &after.Stats)
	}
	return rep, nil
}

// runBaseline runs cfg.Baseline, when set, timing the CPU it takes.
func runBaseline(ctx context.Context, cfg Config) (*Baseline, error) {
	if cfg.Baseline == nil {
		return nil, nil
	}
	cpu0 := processCPU()
	base, err := cfg.Baseline(ctx)
	if err != nil {
		return nil, fmt.Errorf("bench: baseline: %w", err)
	}
	cpu := processCPU().sub(cpu0)
	base.CPU = (cpu.user + cpu.system).Seconds()
	if base.Statements > 0 {
		base.CPUPerStatementUS = base.CPU * 1e6 / float64(base.Statements)
	}
	return base, nil
}

// drive plays the episodes on every stream, paced when cfg.Rate is set,
// while the server's /metrics is sampled, and reports. Each stream is
// closed when its episodes are done.
func drive(ctx context.Context, cfg Config, streams []*client.Stream) *Report {
	sampler := startSampler(ctx, cfg)
	r := newRun(cfg)
	cpu0 := processCPU()
	stopProgress := r.startProgress()
	stop, paced := make(chan struct{}), make(chan struct{})
	if r.pace != nil {
		go func() { defer close(paced); r.sendPaced(ctx, stop) }()
	} else {
		close(paced)
	}
	var wg sync.WaitGroup
	for _, st := range streams {
		wg.Go(newSocket(ctx, r, st).play)
	}
	wg.Wait()
	close(stop)
	<-paced
	elapsed := time.Since(r.start)
	stopProgress()
	rep := r.report(elapsed, processCPU().sub(cpu0))
	rep.Process = sampler.stop(ctx, rep.Steps)
	return rep
}

// dialAll opens cfg.Sockets streams, or none.
func dialAll(ctx context.Context, cfg Config) ([]*client.Stream, error) {
	var streams []*client.Stream
	for range cfg.Sockets {
		s, err := client.DialStream(ctx, cfg.URL, cfg.Token)
		if err != nil {
			abortAll(streams)
			return nil, fmt.Errorf("bench: %w", err)
		}
		streams = append(streams, s)
	}
	return streams, nil
}

// abortAll drops streams no episode was played on.
func abortAll(streams []*client.Stream) {
	for _, s := range streams {
		s.Abort()
	}
}

// serverDelta is what the server counted during the run.
func serverDelta(before, after *schemas.Stats) ServerDelta {
	return ServerDelta{
		EpisodesStarted: after.Started - before.Started,
		RecordsWritten:  after.RecordsWritten - before.RecordsWritten,
		WriteErrors:     after.WriteErrors - before.WriteErrors,
		BytesWritten:    after.BytesWritten - before.BytesWritten,
		LiveEpisodes:    after.LiveEpisodes,
	}
}
