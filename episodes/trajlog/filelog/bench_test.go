package filelog

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// BenchmarkLog measures the episodes and steps per second the log
// sustains: writers goroutines, each playing whole episodes of 6 steps
// (begin, 6 steps, end), with fsync on End (durable) and without
// (nosync). One op is one episode.
func BenchmarkLog(b *testing.B) {
	const steps = 6
	for _, bc := range []struct {
		name    string
		opts    Options
		writers int
	}{
		{"durable", Options{}, 8},
		{"nosync", Options{NoSync: true}, 8},
		{"durable", Options{}, 64},
		{"nosync", Options{NoSync: true}, 64},
	} {
		b.Run(fmt.Sprintf("%s/writers=%d", bc.name, bc.writers), func(b *testing.B) {
			l := mustOpen(b, b.TempDir(), bc.opts)
			per := b.N/bc.writers + 1
			start := time.Now()
			b.ResetTimer()
			writeConcurrently(b, l, bc.writers, per, steps)
			b.StopTimer()
			secs := time.Since(start).Seconds()
			st := l.Stats()
			if err := l.Close(); err != nil {
				b.Fatal(err)
			}
			eps := float64(bc.writers * per)
			b.ReportMetric(eps/secs, "episodes/s")
			b.ReportMetric(eps*steps/secs, "steps/s")
			b.ReportMetric(float64(st.Fsyncs)/eps, "fsyncs/episode")
			b.ReportMetric(float64(st.BytesWritten)/eps, "bytes/episode")
		})
	}
}

// BenchmarkVerify measures how fast Verify (and a Scan of everything)
// reads a log of 4,000 episodes of 6 steps: the time a server's start-up
// verification takes per byte.
func BenchmarkVerify(b *testing.B) {
	dir := b.TempDir()
	l := mustOpen(b, dir, Options{NoSync: true, SegmentBytes: 8 << 20})
	writeConcurrently(b, l, 8, 500, 6)
	size := l.BytesWritten()
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("verify", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if rep, err := l.Verify(ctx); err != nil || !rep.Clean() {
				b.Fatalf("verify: %v", err)
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := l.Scan(ctx, trajlog.Filter{Incomplete: true}, func(*trajlog.Record) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
}
