package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// dbCountSizes are the database counts the growth benchmarks run at;
// pick some with -bench 'DatabaseCount/n=5000$'.
var dbCountSizes = []int{1000, 2000, 5000, 20000}

// BenchmarkDatabaseCount measures, at each size of dbCountSizes, what
// grows with the number of databases served: startup (loading the
// dataset, building the catalog and passing the startup check that
// opens every database and reads its schema: everything serve does
// before it listens), shutdown (closing the stack), and sqlgym check
// (every gold run once, one task per database). Besides ns/op it reports
// the wall and CPU time per database (CPU time, the process's user and
// system time, is steadier on a shared machine) and the SQLite
// connections left open after startup. Run with -benchtime 1x: one op at
// 20,000 databases takes seconds, and building them a minute.
func BenchmarkDatabaseCount(b *testing.B) {
	for _, n := range dbCountSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dataset := dbCountDataset(b, b.TempDir(), n)
			b.Run("startup", func(b *testing.B) { benchStartup(b, dataset, n) })
			b.Run("shutdown", func(b *testing.B) { benchShutdown(b, dataset, n) })
			b.Run("check", func(b *testing.B) { benchCheck(b, dataset, n) })
		})
	}
}

// buildDBCountStack builds serve's stack on dataset, startup check
// included.
func buildDBCountStack(b *testing.B, dataset, dataDir string) *serveStack {
	var s stackFlags
	fs := newFlagSet("serve", io.Discard)
	s.register(fs)
	if err := parseFlags(fs, []string{"--dataset", dataset, "--data-dir", dataDir}); err != nil {
		b.Fatal(err)
	}
	st, err := s.build(context.Background(), zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	return st
}

func benchStartup(b *testing.B, dataset string, n int) {
	dataDir := b.TempDir()
	open := 0
	var cpu cpuClock
	for b.Loop() {
		cpu.start()
		st := buildDBCountStack(b, dataset, dataDir)
		cpu.stop()
		b.StopTimer()
		open = st.Catalog.PoolStats().Open
		st.close(zap.NewNop())
		b.StartTimer()
	}
	reportPerDB(b, n, cpu)
	b.ReportMetric(float64(open), "conns-open")
}

func benchShutdown(b *testing.B, dataset string, n int) {
	dataDir := b.TempDir()
	var cpu cpuClock
	for b.Loop() {
		b.StopTimer()
		st := buildDBCountStack(b, dataset, dataDir)
		b.StartTimer()
		cpu.start()
		st.close(zap.NewNop())
		cpu.stop()
	}
	reportPerDB(b, n, cpu)
}

func benchCheck(b *testing.B, dataset string, n int) {
	var cpu cpuClock
	for b.Loop() {
		cpu.start()
		if err := runCheck(context.Background(), []string{"--dataset", dataset}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
		cpu.stop()
	}
	reportPerDB(b, n, cpu)
}

// cpuClock adds up the process's CPU time (user and system) between
// start and stop.
type cpuClock struct {
	began, total time.Duration
}

func (c *cpuClock) start() { c.began = processCPU() }
func (c *cpuClock) stop()  { c.total += processCPU() - c.began }

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportPerDB reports the wall and CPU time of one op divided by the
// databases.
func reportPerDB(b *testing.B, n int, cpu cpuClock) {
	perOp := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(perOp.Microseconds())/float64(n), "µs/db")
	b.ReportMetric(float64((cpu.total/time.Duration(b.N)).Microseconds())/float64(n), "cpu-µs/db")
}

// BenchmarkDatabaseCountProcess runs the built binary on the databases
// of each size of dbCountSizes, as a user does: the time from starting
// sqlgym serve to its printing where it listens (startup check
// included), its resident memory then, the time SIGTERM takes to stop
// it, and sqlgym check's wall time and peak RSS (the kernel's ru_maxrss
// of the child). The CPU time (user and system) of each child is
// reported too: on a shared machine it is steadier than wall time. Set
// SQLGYM_DBCOUNT_BENCH_BIN to measure another build of sqlgym instead.
func BenchmarkDatabaseCountProcess(b *testing.B) {
	bin := benchBinary(b, "SQLGYM_DBCOUNT_BENCH_BIN")
	for _, n := range dbCountSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dataset := dbCountDataset(b, b.TempDir(), n)
			var listen, stop, check, serveCPU, checkCPU time.Duration
			var rss, checkRSS int64
			for b.Loop() {
				start := time.Now()
				p := binserver.Start(b, bin, "--dataset", dataset, "--data-dir", b.TempDir())
				listen += time.Since(start)
				r, err := p.RSS()
				if err != nil {
					b.Fatal(err)
				}
				rss = max(rss, r)
				start = time.Now()
				p.Stop(b)
				stop += time.Since(start)
				serveCPU += childCPU(b, p.Cmd.ProcessState)
				start = time.Now()
				ps := runCheckBinary(b, bin, dataset)
				check += time.Since(start)
				checkCPU += childCPU(b, ps)
				checkRSS = max(checkRSS, ps.SysUsage().(*syscall.Rusage).Maxrss<<10) // Linux gives KiB
			}
			per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
			b.ReportMetric(per(listen), "s-to-listen")
			b.ReportMetric(float64(rss)/(1<<20), "serve-RSS-MiB")
			b.ReportMetric(per(stop), "s-to-stop")
			b.ReportMetric(per(serveCPU), "serve-cpu-s")
			b.ReportMetric(per(check), "s-check")
			b.ReportMetric(per(checkCPU), "check-cpu-s")
			b.ReportMetric(float64(checkRSS)/(1<<20), "check-peak-RSS-MiB")
		})
	}
}

// runCheckBinary runs bin check on dataset and returns its exit state.
func runCheckBinary(b *testing.B, bin, dataset string) *os.ProcessState {
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "check", "--dataset", dataset)
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("check: %v\n%s", err, &stderr)
	}
	return cmd.ProcessState
}

// childCPU is the user and system time of an ended child.
func childCPU(b *testing.B, ps *os.ProcessState) time.Duration {
	if ps == nil {
		b.Fatal("the process has not ended")
	}
	return ps.UserTime() + ps.SystemTime()
}
