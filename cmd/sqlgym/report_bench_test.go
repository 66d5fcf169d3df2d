package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/schemas"
)

// reportLogSizes are the episode counts the log-size benchmark runs at;
// pick one with -bench 'ReportLogSize/episodes=100000$'.
var reportLogSizes = []int{10_000, 100_000, 1_000_000}

// reportLogTasks is the number of tasks the generated episodes spread
// over, at random: an RL run's log, about 1,000 episodes a task at a
// million.
const reportLogTasks = 1000

// BenchmarkReportLogSize measures sqlgym report over a trajectory log of
// each size of reportLogSizes, written first through episodes/trajlog
// into the benchmark's temporary folder: episodes of an RL run (tags
// run and policy, no sample), each a prompt of about 600 bytes and three
// steps (inspect_schema, execute_sql, submit), about 2.8 KB of log each,
// on reportLogTasks tasks, with one of four answers per task (correct,
// mismatch, or an error). It runs the built binary, as a user does, and
// reports its wall time and peak RSS (the kernel's ru_maxrss of the
// child), the log's size and the number of pass@k values printed. Run
// with -benchtime 1x: writing a million episodes takes minutes. Set
// SQLGYM_REPORT_BENCH_BIN to measure another build of sqlgym instead.
func BenchmarkReportLogSize(b *testing.B) {
	bin := benchBinary(b, "SQLGYM_REPORT_BENCH_BIN")
	for _, n := range reportLogSizes {
		b.Run(fmt.Sprintf("episodes=%d", n), func(b *testing.B) {
			dataDir := b.TempDir()
			size := writeReportLog(b, dataDir, n)
			out := b.TempDir()
			var rss int64
			for b.Loop() {
				rss = max(rss, runReportBinary(b, bin, dataDir, out))
			}
			secs := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(secs, "s/report")
			b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(float64(size)/(1<<20), "log-MiB")
			b.ReportMetric(float64(n)/secs, "episodes/s")
			b.ReportMetric(float64(passAtKCount(b, out)), "pass@k-values")
		})
	}
}

// runReportBinary runs bin report on dataDir's log, writing report.json into
// out, and returns the process's peak RSS in bytes.
func runReportBinary(b *testing.B, bin, dataDir, out string) int64 {
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "report", "--data-dir", dataDir, "--out", out)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("report: %v\n%s", err, &stderr)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("no rusage for the report's process")
	}
	return ru.Maxrss << 10 // Linux gives KiB
}

// passAtKCount is the number of pass@k values in out's report.json.
func passAtKCount(b *testing.B, out string) int {
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		b.Fatal(err)
	}
	var rep struct {
		PassAtK map[string]float64 `json:"pass_at_k"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		b.Fatal(err)
	}
	return len(rep.PassAtK)
}

// writeReportLog writes n generated episodes into dataDir's trajectory
// log and returns the bytes written.
func writeReportLog(b *testing.B, dataDir string, n int) int64 {
	ctx := context.Background()
	l, err := filelog.Open(filelog.LogDir(dataDir), filelog.Options{NoSync: true, Durability: trajlog.DurabilityNone})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(21, 4))
	for i := range n {
		t, steps := reportEpisode(r, i)
		if err := l.Begin(ctx, t); err != nil {
			b.Fatal(err)
		}
		for j := range steps {
			if err := l.Step(ctx, t.EpisodeID, &steps[j]); err != nil {
				b.Fatal(err)
			}
		}
		t.Steps = steps
		if err := l.End(ctx, t); err != nil {
			b.Fatal(err)
		}
	}
	size := l.BytesWritten()
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	return size
}

// reportPrompt is each generated episode's system message.
var reportPrompt = string(bytes.Repeat([]byte("You write SQLite queries. Inspect the schema, run queries, then submit. "), 8))

// reportEpisode is generated episode i: its header, and its steps.
func reportEpisode(r *rand.Rand, i int) (*schemas.Trajectory, []schemas.StepRecord) {
	task := r.IntN(reportLogTasks)
	answer := r.IntN(4)
	outcome := []string{schemas.OutcomeCorrect, schemas.OutcomeCorrect, schemas.OutcomeMismatch, schemas.OutcomePredError}[answer]
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	t := &schemas.Trajectory{EpisodeID: fmt.Sprintf("ep_%016x", i),
		Task: schemas.TaskView{TaskID: fmt.Sprintf("bench/%d", task), Dataset: "bench", DBID: fmt.Sprintf("db%d", task%50),
			Question: "How many singers are older than 30?", Difficulty: []string{"easy", "medium", "hard"}[task%3], Dialect: "sqlite"},
		Tags:       json.RawMessage(fmt.Sprintf(`{"run":"grpo","policy":"step-%d"}`, i/10000)),
		RewardSpec: schemas.DefaultRewardSpec(), ActionFormat: schemas.FormatHermes, MaxTurns: 8,
		Messages:  []schemas.Message{{Role: "system", Content: reportPrompt}, {Role: "user", Content: "How many singers are older than 30?"}},
		StartedAt: start, ServerVersion: "bench"}
	end := start.Add(3 * time.Second)
	sql := fmt.Sprintf("SELECT count(*) FROM singer WHERE age > %d", 30+answer%3)
	steps := []schemas.StepRecord{
		reportStep(1, "inspect_schema", `{}`, "CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER);", "", start),
		reportStep(2, "execute_sql", fmt.Sprintf(`{"sql":%q}`, sql), "count(*)\n12", "", start),
		reportStep(3, "submit", fmt.Sprintf(`{"sql":%q}`, sql), "Submitted.", outcome, start),
	}
	t.EndedAt, t.Outcome = &end, outcome
	return t, steps
}

func reportStep(turn int, tool, args, obs, outcome string, at time.Time) schemas.StepRecord {
	return schemas.StepRecord{Turn: turn, Tool: tool, Arguments: json.RawMessage(args), Observation: obs, Outcome: outcome,
		Action: schemas.Action{Tool: tool, Arguments: json.RawMessage(args)}, RewardComponents: map[string]float64{"turn.ok": 0},
		At: at.Add(time.Duration(turn) * time.Second), ElapsedMS: 0.4}
}
