package transport

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// errReadBudget is the error of a message that could not get room in the
// server's reading budget before its deadline.
var errReadBudget = errors.New("no room to receive the message: the server's --max-reading-bytes is taken by other messages")

// readBudget bounds the bytes of messages being received, across every
// connection and HTTP request: a message takes room as it arrives, in
// growing pieces, and gives it back once it has been parsed. A message
// that cannot get room waits (its sender is pushed back by TCP); the time
// it waits does not count against its sender.
type readBudget struct {
	max  int64
	sem  *semaphore.Weighted
	held atomic.Int64 // bytes taken, for the metric
}

func newReadBudget(max int64) *readBudget {
	return &readBudget{max: max, sem: semaphore.NewWeighted(max)}
}

// inUse returns the bytes taken now.
func (b *readBudget) inUse() int64 { return b.held.Load() }

// readBufferSize is a socket's read buffer: frame headers and the small
// requests that make most of the traffic pass through it.
const readBufferSize = 1 << 10

// firstPiece is the buffer a message starts with; freeBytes is how much
// of any message is read without taking room from the budget, so that
// the small messages of honest clients never wait behind large
// unfinished ones. The memory this leaves outside the budget is bounded
// by freeBytes per connection.
const (
	firstPiece = 1 << 10
	freeBytes  = 16 << 10
)

// read reads r to its end within limit bytes (the caller's reader
// enforces limit; read never grows past limit+1), taking room for what it
// holds. Each wait for room lasts at most maxWait, and onWait is told how
// long it took, so the caller can push its read deadline back by as much.
// It returns the bytes and the room they hold, to give back with release;
// on an error it holds nothing.
func (b *readBudget) read(ctx context.Context, r io.Reader, limit int64, maxWait time.Duration,
	onWait func(time.Duration)) ([]byte, int64, error) {
	buf := newFrame()
	var held int64
	for {
		if len(buf) == cap(buf) {
			grow := max(min(max(int64(cap(buf)), firstPiece), limit+1-int64(cap(buf))), 1)
			take := max(int64(cap(buf))+grow-freeBytes, 0) - held
			if take > 0 {
				if err := b.acquire(ctx, take, maxWait, onWait); err != nil {
					b.release(held)
					return nil, 0, err
				}
				held += take
				b.held.Add(take)
			}
			nb := make([]byte, len(buf), int64(cap(buf))+grow)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, held, nil
		}
		if err != nil {
			b.release(held)
			return nil, 0, err
		}
	}
}

// acquire takes n bytes of room, waiting at most maxWait.
func (b *readBudget) acquire(ctx context.Context, n int64, maxWait time.Duration, onWait func(time.Duration)) error {
	if b.sem.TryAcquire(n) {
		return nil
	}
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, maxWait)
	defer cancel()
	err := b.sem.Acquire(wctx, n)
	onWait(time.Since(start))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errReadBudget
	}
	return nil
}

// release gives back room taken by read.
func (b *readBudget) release(n int64) {
	if n > 0 {
		b.held.Add(-n)
		b.sem.Release(n)
	}
}

// framePool holds frame buffers of firstPiece bytes, which most requests
// fit: a frame read into one goes back once its job has run (see
// releaseFrame), so a busy connection does not allocate one per request.
var framePool = sync.Pool{New: func() any { b := make([]byte, 0, firstPiece); return &b }}

// newFrame returns an empty buffer of firstPiece bytes to read a frame
// into.
func newFrame() []byte { return (*framePool.Get().(*[]byte))[:0] }

// releaseFrame gives back the buffer of a frame whose job has run:
// nothing refers to a frame once its job's Run has returned (the calls'
// ids and params are slices of it only until then). A buffer that grew
// past firstPiece is left to the garbage collector.
func releaseFrame(frame []byte) {
	if cap(frame) != firstPiece {
		return
	}
	frame = frame[:0]
	framePool.Put(&frame)
}
