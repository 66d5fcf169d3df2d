package filelog

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// Errors a write returns for a log that takes no more writes.
var (
	ErrClosed   = errors.New("trajectory log is closed")
	ErrReadOnly = errors.New("trajectory log is open read-only")
)

// ErrLocked is what Open returns when another process holds the log's
// lock: two writers never share one log.
var ErrLocked = errors.New("another process is writing this log")

// DefaultSyncInterval is how often DurabilityInterval fsyncs the log
// when Options.SyncInterval is zero.
const DefaultSyncInterval = 100 * time.Millisecond

// DefaultCommitDelay is how long sqlgym serve's commits wait for more
// episode ends, while other episodes are live (Options.CommitDelay): at
// thousands of ends a second it makes each fsync cover several times as
// many ends (docs/benchmarks.md).
const DefaultCommitDelay = time.Millisecond

// Options configure a Log. The zero value is a durable log with 64 MiB
// segments.
type Options struct {
	// SegmentBytes is the size past which the segment is sealed and a new
	// one started (64 MiB). A line longer than that gets a segment of its own.
	SegmentBytes int64
	// CommitDelay is how long a commit waits for more End calls before it
	// fsyncs, when other episodes are live and may end meanwhile (0: at
	// once; the End calls that arrive while an fsync runs share the next
	// one either way). With none live, the End waiting is the only one to
	// come and its commit does not wait.
	CommitDelay time.Duration
	// Durability is what End waits for: DurabilityEpisode (the zero
	// value) its line's fsync, DurabilityInterval and DurabilityNone only
	// its write(2).
	Durability trajlog.Durability
	// SyncInterval is how often DurabilityInterval fsyncs the log
	// (DefaultSyncInterval); the other modes ignore it.
	SyncInterval time.Duration
	// NoSync turns off every fsync, whatever Durability says: of lines,
	// of sealed segments and indexes, of the directory, at Close. A
	// machine losing power may take any part of the log with it. For
	// tests and throwaway runs; the server never sets it.
	NoSync bool
	// ReadOnly opens the log only to read it, beside a server that may be
	// writing it: no recovery, no lock, and every write fails.
	ReadOnly bool
	// Logger gets what recovery did and each damaged line a reader skips;
	// nil logs nothing.
	Logger *zap.Logger
	// OnDamage, when set, is called with each damaged line a reader skips
	// or recovery cuts off, besides the log line.
	OnDamage func(Damage)
	// Verify, for a writer, checks every segment sealed before Open in the
	// background (as Verify does) and logs a warning for each damaged one
	// and a summary. Close stops it.
	Verify bool
}

func (o *Options) setDefaults() {
	if o.SegmentBytes <= 0 {
		o.SegmentBytes = 64 << 20
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.SyncInterval <= 0 {
		o.SyncInterval = DefaultSyncInterval
	}
}

// syncs reports whether the log fsyncs at all: sealed segments, indexes,
// the directory and Close.
func (o *Options) syncs() bool { return !o.NoSync }

// endWaits reports whether End waits for its line's fsync.
func (o *Options) endWaits() bool { return o.syncs() && o.Durability == trajlog.DurabilityEpisode }

// flushes reports whether the log has a flusher goroutine: one that
// fsyncs for End (episode) or on a ticker (interval).
func (o *Options) flushes() bool { return o.syncs() && o.Durability != trajlog.DurabilityNone }

// Damage is a line that could not be used: torn by a crash, or corrupt.
type Damage struct {
	Segment string // file name
	Offset  int64  // byte offset of the line in the segment
	Line    int64  // its line number, from 1 (0 when recovery found it)
	Bytes   int    // length of the line
	Reason  string
}

// Log is the durable trajectory log: append-only, checksummed JSON lines
// in size-rotated segments under one directory, written with group
// commit. It implements Writer and Reader; docs/trajectories.md describes
// the format and what survives a crash.
type Log struct {
	dir      string
	opts     Options
	lockFile *os.File // holds the directory's lock while writing
	recovery Recovery

	mu      sync.Mutex            // guards seg, live, written, closed, failed
	seg     *segment              // the segment being written
	live    map[string]*liveEntry // episodes begun and not ended
	written int64                 // bytes handed to the operating system since Open
	closed  bool
	failed  error // once set, the log takes no more writes

	// The group write (groupwrite.go), guarded by mu.
	writing     bool          // an appender is writing lines; others queue theirs
	idle        *sync.Cond    // on mu: broadcast when writing ends
	queued      []byte        // lines waiting for the writer
	queuedLines []pendingLine // what each queued line is
	next        *group        // the outcome the queued lines' appenders wait for
	spare       []byte        // the buffer queued gets after a write, reused
	spareLines  []pendingLine
	beforeWrite func() // tests only: runs before each write(2), mu released

	smu      sync.Mutex    // guards synced, syncErr, syncedCh
	synced   int64         // bytes known to be on disk
	syncErr  error         // the fsync failure that stopped the log
	syncedCh chan struct{} // closed and replaced after each fsync

	kick       chan struct{} // asks the flusher for an fsync
	stop       chan struct{} // closed by Close
	flushDone  chan struct{} // closed when the flusher has returned
	verifyDone chan struct{} // closed when the background verification has returned (or never ran)

	bytes, lines, writes, fsyncs, rotations atomic.Int64
}

// Stats are a log's counters since Open.
type Stats struct {
	BytesWritten int64 // bytes of lines written
	Lines        int64 // lines written
	Writes       int64 // write(2) calls that wrote them: fewer than Lines when lines were grouped
	Fsyncs       int64 // fsyncs of segments
	Rotations    int64 // segments sealed for size
	Segment      int   // number of the segment being written
}

// Open opens the log in dir, creating dir if needed. A writer locks the
// directory, repairs what a crash left (see Recovery), and starts a new
// segment beginning with an open event.
func Open(dir string, opts Options) (*Log, error) {
	opts.setDefaults()
	if opts.Durability < trajlog.DurabilityEpisode || opts.Durability > trajlog.DurabilityNone {
		return nil, fmt.Errorf("open trajectory log: unknown %v", opts.Durability)
	}
	l := &Log{dir: dir, opts: opts, live: map[string]*liveEntry{}, syncedCh: make(chan struct{}),
		kick: make(chan struct{}, 1), stop: make(chan struct{}), flushDone: make(chan struct{}), verifyDone: make(chan struct{})}
	l.idle = sync.NewCond(&l.mu)
	if opts.ReadOnly || !opts.Verify {
		close(l.verifyDone)
	}
	if opts.ReadOnly {
		l.closed = true
		close(l.flushDone)
		return l, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open trajectory log: %w", err)
	}
	lf, err := lockDir(dir)
	if err != nil {
		return nil, fmt.Errorf("open trajectory log: %w", err)
	}
	l.lockFile = lf
	if err := l.start(); err != nil {
		lf.Close()
		return nil, fmt.Errorf("open trajectory log: %w", err)
	}
	sealed := l.seg.n - 1 // every segment before this session's
	if opts.flushes() {
		go l.flushLoop()
	} else {
		close(l.flushDone)
	}
	if opts.Verify {
		go l.verifySealed(sealed)
	}
	return l, nil
}

// start recovers the directory and opens the session's first segment.
func (l *Log) start() error {
	last, err := l.recover()
	if err != nil {
		return err
	}
	if l.seg, err = createSegment(l.dir, last+1, l.live, l.opts.syncs()); err != nil {
		return err
	}
	now := time.Now().UTC()
	line, err := encodeLine(&event{Ev: evOpen, At: &now})
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.writeLocked(line); err != nil {
		l.seg.f.Close()
		return err
	}
	l.seg.sum.open()
	return nil
}

// Recovery reports what Open found and repaired.
func (l *Log) Recovery() Recovery { return l.recovery }

// Stats returns the log's counters.
func (l *Log) Stats() Stats {
	st := Stats{BytesWritten: l.bytes.Load(), Lines: l.lines.Load(), Writes: l.writes.Load(),
		Fsyncs: l.fsyncs.Load(), Rotations: l.rotations.Load()}
	l.mu.Lock()
	if l.seg != nil {
		st.Segment = l.seg.n
	}
	l.mu.Unlock()
	return st
}

// BytesWritten is the number of bytes of lines written since Open; the
// episode server reports it in server.info and /metrics.
func (l *Log) BytesWritten() int64 { return l.bytes.Load() }

// Fsyncs is the number of fsyncs of segments since Open (Stats.Fsyncs);
// the episode server reports it in /metrics.
func (l *Log) Fsyncs() int64 { return l.fsyncs.Load() }

// Dir is the directory the log lives in.
func (l *Log) Dir() string { return l.dir }

// Close waits for the commits in flight, stops the flusher, seals the
// segment being written (fsync and index) and releases the directory. Writes after Close fail
// with ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	for l.writing || l.next != nil {
		l.idle.Wait() // the writers write what is queued, then let go
	}
	l.mu.Unlock()
	close(l.stop)
	<-l.flushDone
	<-l.verifyDone
	l.mu.Lock()
	err := l.seg.seal(l.dir, l.opts.syncs())
	written := l.written
	l.mu.Unlock()
	if l.opts.syncs() {
		l.fsyncs.Add(1)
	}
	l.markSynced(written, err)
	if cerr := l.lockFile.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("close trajectory log: %w", err)
	}
	return nil
}

// report logs a damaged line and hands it to OnDamage.
func (l *Log) report(d Damage) {
	l.opts.Logger.Warn("damaged trajectory line skipped", zap.String("segment", d.Segment),
		zap.Int64("offset", d.Offset), zap.Int("bytes", d.Bytes), zap.String("reason", d.Reason))
	if l.opts.OnDamage != nil {
		l.opts.OnDamage(d)
	}
}
