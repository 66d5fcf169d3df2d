package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// Report is what a run measured. Every episode started either ended
// (the server ended it, or the script closed it) or failed on an error:
// Started == Ended + Failed. Failed calls are counted in Errors.
type Report struct {
	URL               string    `json:"url"`
	InProcess         bool      `json:"in_process"`
	Script            string    `json:"script"`
	Dataset           string    `json:"dataset,omitempty"`
	Sockets           int       `json:"sockets"`
	EpisodesPerSocket int       `json:"episodes_per_socket"`
	GOMAXPROCS        int       `json:"gomaxprocs"`
	StartedAt         time.Time `json:"started_at"`
	Elapsed           float64   `json:"elapsed_s"`

	Started      int64   `json:"episodes_started"`
	Ended        int64   `json:"episodes_ended"`
	Failed       int64   `json:"episodes_failed"`
	ResetsFailed int64   `json:"resets_failed"` // resets answered with an error: no episode started
	Steps        int64   `json:"steps"`         // steps answered with a result
	EpisodesPerS float64 `json:"episodes_per_s"`
	StepsPerS    float64 `json:"steps_per_s"`
	SQLSteps     int64   `json:"sql_steps"` // execute_sql and submit steps answered: each runs one of the episode's statements
	SQLStepsPerS float64 `json:"sql_steps_per_s"`

	// Baseline is the engine's own rate on the same statements, measured
	// right before the episodes; Ratio is SQLStepsPerS over its rate.
	Baseline *Baseline `json:"baseline,omitempty"`
	Ratio    float64   `json:"ratio_to_baseline,omitempty"`
	// CPUBeyondStatementUS is the server's CPU per step less the
	// baseline's CPU per statement: what the server spends on a step
	// besides running its SQL (the clients' CPU too, in process).
	CPUBeyondStatementUS float64 `json:"cpu_beyond_statement_us,omitempty"`
	// Pacing is set when the steps were paced (Config.Rate).
	Pacing *Pacing `json:"pacing,omitempty"`
	// Process is the server process's CPU per step and memory.
	Process ServerProcess `json:"server_process"`

	Latency    map[string]Latency `json:"latency"`     // by method, and episode.step by tool
	Errors     map[string]int64   `json:"errors"`      // failed calls: JSON-RPC code, or timeout, closed (the socket ended), canceled, unreadable, no_gold
	ToolErrors map[string]int64   `json:"tool_errors"` // steps whose observation carried info.error, by code
	Outcomes   map[string]int64   `json:"outcomes"`
	CPU        CPU                `json:"cpu"`
	Server     ServerDelta        `json:"server"`
}

// CPU is the CPU time this process used during the run.
type CPU struct {
	User   float64 `json:"user_s"`
	System float64 `json:"system_s"`
	Cores  float64 `json:"cores"`  // (User+System) / elapsed
	Counts string  `json:"counts"` // what the process held: "client" or "client and server"
}

// ServerDelta is what the server's own counters (server.info stats) moved
// by during the run; another client's episodes would count here too.
type ServerDelta struct {
	EpisodesStarted int64 `json:"episodes_started"`
	RecordsWritten  int64 `json:"records_written"`
	WriteErrors     int64 `json:"write_errors"`
	BytesWritten    int64 `json:"bytes_written"`
	LiveEpisodes    int   `json:"live_episodes_after"`
}

// Pacing is what the pacer offered and what the server achieved.
type Pacing struct {
	OfferedPerS  float64 `json:"offered_steps_per_s"`
	Offered      int64   `json:"steps_offered"`        // send slots that came due during the run
	Sent         int64   `json:"steps_sent"`           // steps sent (at most Offered)
	AchievedPerS float64 `json:"achieved_steps_per_s"` // steps answered per second
	// Lag is the time from a step's scheduled send to its sending: above
	// zero when every episode was busy as its slot came due (and by the
	// timer's slack). It is part of the step latencies above.
	Lag Latency `json:"send_lag"`
}

// setBaseline records the baseline, the ratio to it, and the server's
// CPU per step beyond the statement's own (with Process already set).
func (r *Report) setBaseline(b *Baseline) {
	r.Baseline = b
	if b == nil {
		return
	}
	if b.PerS > 0 {
		r.Ratio = r.SQLStepsPerS / b.PerS
	}
	if r.Process.CPUPerStepUS > 0 && b.CPUPerStatementUS > 0 {
		r.CPUBeyondStatementUS = r.Process.CPUPerStepUS - b.CPUPerStatementUS
	}
}

// ErrorCount is the number of failed calls.
func (r *Report) ErrorCount() int64 {
	var n int64
	for _, v := range r.Errors {
		n += v
	}
	return n
}

// UncanceledErrors is the number of failed calls other than those an
// interrupt cut short (canceled): the calls that make a run fail.
func (r *Report) UncanceledErrors() int64 {
	return r.ErrorCount() - r.Errors["canceled"]
}

// WriteJSONFile writes the report as indented JSON to path.
func (r *Report) WriteJSONFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// report snapshots the run once its workers have stopped.
func (r *run) report(elapsed time.Duration, cpu cpuTime) *Report {
	rep := &Report{
		URL: r.cfg.URL, InProcess: r.cfg.InProcess, Script: r.cfg.Script, Dataset: r.cfg.Dataset,
		Sockets: r.cfg.Sockets, EpisodesPerSocket: r.cfg.EpisodesPerSocket,
		GOMAXPROCS: runtime.GOMAXPROCS(0), StartedAt: r.start, Elapsed: elapsed.Seconds(),
		Started: r.started.Load(), Ended: r.ended.Load(), Failed: r.failed.Load(),
		ResetsFailed: r.resetsFailed.Load(), Steps: r.steps.Load(), Latency: map[string]Latency{},
	}
	rep.EpisodesPerS = float64(rep.Ended) / elapsed.Seconds()
	rep.StepsPerS = float64(rep.Steps) / elapsed.Seconds()
	rep.SQLSteps = r.sqlSteps.Load()
	rep.SQLStepsPerS = float64(rep.SQLSteps) / elapsed.Seconds()
	if r.pace != nil {
		rep.Pacing = &Pacing{OfferedPerS: r.cfg.Rate, Offered: offered(r.cfg.Rate, elapsed),
			Sent: r.sent.Load(), AchievedPerS: rep.StepsPerS, Lag: r.lag.summary()}
	}
	for k, h := range r.lat {
		if s := h.summary(); s.Count > 0 {
			rep.Latency[k] = s
		}
	}
	r.mu.Lock()
	rep.Errors, rep.ToolErrors, rep.Outcomes = maps.Clone(r.errs), maps.Clone(r.toolErrors), maps.Clone(r.outcomes)
	r.mu.Unlock()
	rep.CPU = CPU{User: cpu.user.Seconds(), System: cpu.system.Seconds(),
		Cores: (cpu.user + cpu.system).Seconds() / elapsed.Seconds(), Counts: "client"}
	if r.cfg.InProcess {
		rep.CPU.Counts = "client and server"
	}
	return rep
}

// WriteText writes the report for a person to read.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	where := "server at " + r.URL
	if r.InProcess {
		where = "in-process server (its CPU is shared with the client's)"
	}
	fmt.Fprintf(&b, "sqlgym bench: %d sockets x %d episodes in flight, script %s, %s, %.1f s, GOMAXPROCS %d\n",
		r.Sockets, r.EpisodesPerSocket, r.Script, where, r.Elapsed, r.GOMAXPROCS)
	fmt.Fprintf(&b, "episodes  %d started, %d ended, %d failed; %d resets refused  %.1f/s\n",
		r.Started, r.Ended, r.Failed, r.ResetsFailed, r.EpisodesPerS)
	fmt.Fprintf(&b, "steps     %d  %.1f/s; SQL steps (execute_sql, submit) %d  %.1f/s\n", r.Steps, r.StepsPerS, r.SQLSteps, r.SQLStepsPerS)
	r.writeBaseline(&b)
	r.writePacing(&b)
	r.writeLatency(&b)
	fmt.Fprintf(&b, "outcomes     %s\n", counts(r.Outcomes, schemas.Outcomes()))
	fmt.Fprintf(&b, "tool errors  %s\n", counts(r.ToolErrors, nil))
	fmt.Fprintf(&b, "errors       %s\n", counts(r.Errors, nil))
	fmt.Fprintf(&b, "cpu          user %.1f s, system %.1f s: %.2f cores (this process: %s)\n",
		r.CPU.User, r.CPU.System, r.CPU.Cores, r.CPU.Counts)
	r.writeProcess(&b)
	s := r.Server
	fmt.Fprintf(&b, "server       %d episodes started, %d records written (%d write errors, %.1f MB), %d live after\n",
		s.EpisodesStarted, s.RecordsWritten, s.WriteErrors, float64(s.BytesWritten)/1e6, s.LiveEpisodes)
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) writeLatency(w io.Writer) {
	const format = "%-28s %9s %9s %9s %9s %9s\n"
	fmt.Fprintf(w, format, "latency (ms)", "count", "p50", "p90", "p99", "max")
	for _, k := range latencyKeys() {
		if l, ok := r.Latency[k]; ok {
			fmt.Fprintf(w, format, "  "+k, fmt.Sprint(l.Count), ms2(l.P50), ms2(l.P90), ms2(l.P99), ms2(l.Max))
		}
	}
}

func ms2(v float64) string { return fmt.Sprintf("%.2f", v) }

// counts renders m as "key n, key n": the keys of order first, in that
// order, then the rest sorted; "none" when empty.
func counts(m map[string]int64, order []string) string {
	var parts []string
	seen := map[string]bool{}
	for _, k := range order {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
		seen[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !seen[k] && m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// offered is how many slots of the rate come due in elapsed: the one at
// the start and one every 1/rate after.
func offered(rate float64, elapsed time.Duration) int64 {
	return int64(rate*elapsed.Seconds()) + 1
}

func (r *Report) writeBaseline(w io.Writer) {
	b := r.Baseline
	if b == nil {
		return
	}
	fmt.Fprintf(w, "baseline  %d statements in process on %d goroutines in %.1f s: %.1f/s (%d failed), %.0f us of CPU each; ratio of SQL steps/s to it %.3f\n",
		b.Statements, b.Workers, b.Elapsed, b.PerS, b.Errors, b.CPUPerStatementUS, r.Ratio)
}

func (r *Report) writePacing(w io.Writer) {
	p := r.Pacing
	if p == nil {
		return
	}
	fmt.Fprintf(w, "pacing    offered %.1f steps/s (%d due), sent %d, achieved %.1f/s; send lag p50 %s p99 %s max %s ms\n",
		p.OfferedPerS, p.Offered, p.Sent, p.AchievedPerS, ms2(p.Lag.P50), ms2(p.Lag.P99), ms2(p.Lag.Max))
}

func (r *Report) writeProcess(w io.Writer) {
	p := r.Process
	if p.Error != "" {
		fmt.Fprintf(w, "server process  not read from %s: %s\n", p.MetricsURL, p.Error)
		return
	}
	whose := "the server's"
	if p.IncludesClient {
		whose = "this process's: the bench's clients and the server's together"
	}
	beyond := ""
	if r.CPUBeyondStatementUS != 0 {
		beyond = fmt.Sprintf(" (%.0f beyond the statement's own)", r.CPUBeyondStatementUS)
	}
	fmt.Fprintf(w, "server process  cpu %.2f s (%.2f cores) over %d steps: %.0f us/step%s; rss peak %.1f MB, end %.1f MB (%s, %d samples of %s)\n",
		p.CPU, p.Cores, p.Steps, p.CPUPerStepUS, beyond, p.RSSPeak/1e6, p.RSSEnd/1e6, whose, p.Samples, p.MetricsURL)
	if p.StatementsReused > 0 || p.EndsPerFsync > 0 || p.RepliesPerWrite > 0 {
		fmt.Fprintf(w, "server engine   %.0f%% of statements run from prepared ones; %.1f episode ends per fsync; %.1f replies per socket write\n",
			100*p.StatementsReused, p.EndsPerFsync, p.RepliesPerWrite)
	}
}
