package postgres

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// memoryBomb builds a 1 MB value, then an aggregate of a thousand of
// them: a gigabyte of one backend's memory without a function the
// statement check refuses (issue 19's second case, its repeat() aside).
const memoryBomb = `SELECT length(string_agg(s, '')), length(string_agg(s || 'y', ''))
FROM (SELECT string_agg('x', '') AS s FROM generate_series(1, 1000000)) AS a, generate_series(1, 1000)`

// TestAStatementsMemoryIsBounded: the statement fails as too large, the
// readers' server processes never hold much more than the bound, and the
// database keeps serving.
func TestAStatementsMemoryIsBounded(t *testing.T) {
	const limit = 64 << 20
	d, _, _ := openFixture(t, Config{MaxStatementMemory: limit})
	peak, stop := sampleReaders(t)
	_, err := d.Query(context.Background(), memoryBomb, env.Limits{Timeout: 30 * time.Second})
	seen := stop()
	checkKind(t, err, []error{env.ErrTooLarge})
	if err != nil && !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("err = %v, want it to name the bound", err)
	}
	if st := d.(*db).eng.MemoryStats(); st.Cancelled != 1 {
		t.Errorf("memory stats %+v, want one statement cancelled", st)
	}
	if *peak > 3*limit {
		t.Errorf("a reader's server process held %d MiB; want under %d MiB", *peak>>20, 3*limit>>20)
	}
	t.Logf("peak private memory of a reader's process: %d MiB over %d samples (bound %d MiB)", *peak>>20, seen, limit>>20)
	checkServing(t, d)
}

// sampleReaders samples the private memory of every reader's server
// process on this host until stop, which returns how many samples it
// took; peak is the most it saw.
func sampleReaders(t *testing.T) (peak *int64, stop func() int) {
	t.Helper()
	var max int64
	var n int
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			for _, m := range readerMemory() {
				if m > max {
					max = m
				}
			}
			n++
		}
	}()
	return &max, func() int { close(done); wg.Wait(); return n }
}

// readerMemory is the private memory of each server process of the
// reader role.
func readerMemory() []int64 {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int64
	for _, dir := range dirs {
		title, err := os.ReadFile(dir + "/cmdline")
		if err != nil || !bytes.HasPrefix(title, []byte("postgres: ")) || !bytes.Contains(title, []byte(DefaultRole)) {
			continue
		}
		f, err := os.Open(dir + "/statm")
		if err != nil {
			continue
		}
		if n, err := privateBytes(f); err == nil {
			out = append(out, n)
		}
		f.Close()
	}
	return out
}
