package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// memWatchEvery is how often the memory watch looks at a running
// statement's server process. A statement that ends sooner is never
// looked at.
const memWatchEvery = 20 * time.Millisecond

// errStatementMemory is the cause of a statement cancelled by the memory
// watch.
var errStatementMemory = errors.New("the statement's server process passed its memory bound")

// memWatch watches the server process of one running statement, when
// that process is on this host: every memWatchEvery it reads the
// process's private memory (/proc/PID/statm: resident less shared pages)
// and cancels the statement, with errStatementMemory as the cause, once
// it passes the engine's MaxStatementMemory. PostgreSQL has no setting
// that bounds what one backend allocates (work_mem bounds each sort and
// hash, not an aggregate's state or a value being built), so the bound is
// kept from outside.
type memWatch struct {
	eng    *Engine
	pid    uint32
	local  string // the connection's own address, as the process title shows it
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
	statm   *os.File
}

// watchMemory starts watching the statement running on pc; stop ends the
// watch. It does nothing when MaxStatementMemory is negative.
func (e *Engine) watchMemory(pc *pgconn.PgConn, cancel context.CancelCauseFunc) (stop func()) {
	if e.cfg.MaxStatementMemory < 0 {
		return func() {}
	}
	w := &memWatch{eng: e, pid: pc.PID(), local: processAddr(pc.Conn().LocalAddr()), cancel: cancel}
	w.mu.Lock()
	w.timer = time.AfterFunc(memWatchEvery, w.check)
	w.mu.Unlock()
	return w.stop
}

// stop ends the watch and closes what it opened.
func (w *memWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.timer.Stop()
	if w.statm != nil {
		w.statm.Close()
	}
}

// check looks at the process once, cancels the statement past the bound,
// and looks again later while the statement runs.
func (w *memWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	if w.statm == nil {
		f, err := openBackend(w.pid, w.local)
		if err != nil {
			w.eng.memUnwatched.Add(1)
			return // not on this host, or not ours: nothing to watch
		}
		w.statm = f
	}
	n, err := privateBytes(w.statm)
	if err != nil {
		return
	}
	w.eng.notePeak(n)
	if n > w.eng.cfg.MaxStatementMemory {
		w.eng.memCancels.Add(1)
		w.cancel(errStatementMemory)
		return
	}
	w.timer.Reset(memWatchEvery)
}

// openBackend opens /proc/PID/statm of the server process serving the
// connection whose address is local, after checking by its title that
// the process is that one (a PostgreSQL backend showing local as its
// client): a server on another host or in another PID namespace has no
// such process here, or another process under that PID.
func openBackend(pid uint32, local string) (*os.File, error) {
	dir := "/proc/" + strconv.FormatUint(uint64(pid), 10)
	title, err := os.ReadFile(dir + "/cmdline")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(title, []byte("postgres: ")) || !bytes.Contains(title, []byte(local)) {
		return nil, fmt.Errorf("process %d is not this connection's backend", pid)
	}
	return os.Open(dir + "/statm")
}

// processAddr is a connection's own address as PostgreSQL's process
// title shows its client: "HOST(PORT)" for TCP, "[local]" for a Unix
// socket.
func processAddr(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String() + "(" + strconv.Itoa(t.Port) + ")"
	}
	return "[local]"
}

// pageSize is the size of the pages statm counts.
var pageSize = int64(os.Getpagesize())

// privateBytes reads a process's resident pages less its shared ones
// (statm's second and third fields) from its open statm file.
func privateBytes(f *os.File) (int64, error) {
	var buf [128]byte
	n, err := f.ReadAt(buf[:], 0)
	if n == 0 {
		return 0, err
	}
	fields := bytes.Fields(buf[:n])
	if len(fields) < 3 {
		return 0, errors.New("statm: too few fields")
	}
	resident, err1 := strconv.ParseInt(string(fields[1]), 10, 64)
	shared, err2 := strconv.ParseInt(string(fields[2]), 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return (resident - shared) * pageSize, nil
}

// memStats are the memory watch's counts.
type memStats struct {
	memCancels   atomic.Int64 // statements cancelled past the bound
	memUnwatched atomic.Int64 // statements whose process could not be watched
	memPeak      atomic.Int64 // the most private memory seen in a process
}

// notePeak keeps n when it is the most seen.
func (s *memStats) notePeak(n int64) {
	for {
		old := s.memPeak.Load()
		if n <= old || s.memPeak.CompareAndSwap(old, n) {
			return
		}
	}
}

// MemoryStats are what the memory watch saw since the engine started.
type MemoryStats struct {
	Cancelled int64 // statements cancelled past MaxStatementMemory
	Unwatched int64 // statements that ran long enough to be looked at, on a process not visible here
	PeakBytes int64 // the most private memory seen in one server process
}

// MemoryStats reports what the memory watch saw.
func (e *Engine) MemoryStats() MemoryStats {
	return MemoryStats{Cancelled: e.memCancels.Load(), Unwatched: e.memUnwatched.Load(), PeakBytes: e.memPeak.Load()}
}
