package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
)

// socket plays cfg.EpisodesPerSocket episodes at a time over one stream,
// event-driven: its reader goroutine reads each reply and queues the
// request that follows it, and a writer goroutine writes every request
// that queued meanwhile in one system call (the reader writes itself
// when no other reply is on its way, see replied). No goroutine waits on a
// call: the bench shares the machine with the server it measures, and
// what it spends (a goroutine switch and a system call each way per
// call, were each episode a goroutine) is taken from the server.
type socket struct {
	r      *run
	ctx    context.Context
	stream *client.Stream
	ids    atomic.Int64 // the last request id used

	mu       sync.Mutex
	out      [][]byte             // request frames waiting for the writer
	spare    [][]byte             // the slice the writer last wrote, for reuse
	pending  map[int64]*call      // requests in flight, by id
	live     int                  // episode slots still playing (each holds one request or timer at a time)
	broken   bool                 // the stream failed or is closing: no request goes out
	replying bool                 // the reader is handling a reply: it sends what that queues (replied)
	wake     chan struct{}        // the writer has frames to write
	finished chan struct{}        // closed when live reaches 0
	stopped  chan struct{}        // closed once the reader has ended
	timers   map[*time.Timer]bool // pauses before a retried reset, stopped when the socket ends
	pauses   sync.WaitGroup       // the pauses not yet over: started, and neither fired to its end nor stopped
}

// call is a request in flight.
type call struct {
	kind callKind
	ep   *episode
	act  *action   // the step's action (callStep)
	key  string    // its latency key
	t0   time.Time // when its latency starts: sent, or its paced slot's time
	sent time.Time // when it was queued, for the timeout
}

// callKind is what a request was for.
type callKind uint8

const (
	callReset   callKind = iota
	callStep             // one of the script's steps
	callClose            // ends an episode the script left running
	callAbandon          // closes an episode that failed; not timed or counted
)

// pacedStep is a step waiting for its send slot, on socket s.
type pacedStep struct {
	s   *socket
	ep  *episode
	act *action
}

func newSocket(ctx context.Context, r *run, s *client.Stream) *socket {
	return &socket{r: r, ctx: ctx, stream: s, pending: map[int64]*call{}, live: r.cfg.EpisodesPerSocket,
		wake: make(chan struct{}, 1), finished: make(chan struct{}), stopped: make(chan struct{}),
		timers: map[*time.Timer]bool{}}
}

// play runs the socket's episodes until the run's bounds, ctx, or the
// stream end, and accounts for every request it made.
func (s *socket) play() {
	var wg sync.WaitGroup
	wg.Go(s.writer)
	wg.Go(s.closer)
	wg.Go(s.sweeper)
	for range s.r.cfg.EpisodesPerSocket {
		s.next()
	}
	s.read()
	close(s.stopped)
	s.stream.Abort()
	wg.Wait()
	s.pauses.Wait() // a pause that had fired when the reader ended: its slot retires
}

// closer starts the close handshake once every slot has retired or ctx
// ends; the reader then stops.
func (s *socket) closer() {
	select {
	case <-s.finished:
	case <-s.ctx.Done():
	case <-s.stopped:
		return
	}
	s.mu.Lock()
	s.broken = true
	s.mu.Unlock()
	s.stream.Close()
}

// writer writes the frames that queued, all at once, until the reader
// ends. A failed write ends the stream, which ends the reader.
func (s *socket) writer() {
	for {
		select {
		case <-s.wake:
		case <-s.stopped:
			return
		}
		s.flush()
	}
}

// flush writes the frames that queued, all at once. A failed write ends
// the stream, which ends the reader.
func (s *socket) flush() {
	s.mu.Lock()
	frames := s.out
	s.out, s.spare = s.spare, nil
	s.mu.Unlock()
	if len(frames) == 0 {
		return
	}
	if err := s.stream.Write(frames...); err != nil {
		s.stream.Abort()
	}
	clear(frames)
	s.mu.Lock()
	if s.spare == nil && len(s.out) == 0 {
		s.spare = frames[:0]
	}
	s.mu.Unlock()
}

// send queues a request, or, when the stream is gone or the run
// cancelled, fails it at once.
func (s *socket) send(c *call, method string, params []byte) {
	id := s.ids.Add(1)
	frame := appendRequest(make([]byte, 0, len(params)+64), id, method, params)
	now := time.Now()
	c.sent = now
	if c.t0.IsZero() {
		c.t0 = now
	}
	s.mu.Lock()
	if s.broken || s.ctx.Err() != nil {
		s.mu.Unlock()
		s.lost(c, s.lostCode())
		return
	}
	s.pending[id] = c
	s.out = append(s.out, frame)
	wake := len(s.out) == 1 && !s.replying
	s.mu.Unlock()
	if wake {
		s.wakeWriter()
	}
}

// wakeWriter tells the writer that frames wait, without blocking.
func (s *socket) wakeWriter() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// replied sends what handling a reply queued: at once, from the reader,
// when no other reply is on its way (nothing could join the write, and a
// hand-off to the writer would only add a wake-up to the step's round
// trip: one episode at a time is all round trips); else through the
// writer, so that what the replies arriving meanwhile queue goes out in
// the same write.
func (s *socket) replied() {
	s.mu.Lock()
	s.replying = false
	queued := len(s.out)
	onTheWay := len(s.pending) - queued
	s.mu.Unlock()
	switch {
	case queued == 0:
	case onTheWay == 0:
		s.flush()
	default:
		s.wakeWriter()
	}
}

// read handles replies until the stream ends, then fails what is still
// in flight.
func (s *socket) read() {
	for {
		frame, err := s.stream.Read()
		if err != nil {
			break
		}
		id, ok := replyID(frame)
		if !ok {
			continue
		}
		s.mu.Lock()
		c := s.pending[id]
		delete(s.pending, id)
		s.replying = c != nil
		s.mu.Unlock()
		if c != nil {
			s.reply(c, frame)
			s.replied()
		}
	}
	s.mu.Lock()
	s.broken = true
	lost := s.pending
	s.pending = map[int64]*call{}
	for t := range s.timers {
		if t.Stop() {
			s.retireLocked() // without the reset it waited to retry
			s.pauses.Done()
		}
	}
	s.mu.Unlock()
	code := s.lostCode()
	for _, c := range lost {
		s.lost(c, code)
	}
}

// lostCode names the failure of a call the stream ended under.
func (s *socket) lostCode() string {
	if s.ctx.Err() != nil {
		return "canceled"
	}
	return "closed"
}

// sweeper fails the calls in flight for longer than the call timeout,
// checking a few times a timeout, until the reader ends.
func (s *socket) sweeper() {
	every := min(max(s.r.cfg.CallTimeout/8, 10*time.Millisecond), time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stopped:
			return
		case now := <-t.C:
			for _, c := range s.overdue(now) {
				s.lost(c, "timeout")
			}
		}
	}
}

// overdue takes the calls sent more than the call timeout before now out
// of pending.
func (s *socket) overdue(now time.Time) []*call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var late []*call
	for id, c := range s.pending {
		if now.Sub(c.sent) > s.r.cfg.CallTimeout {
			delete(s.pending, id)
			late = append(late, c)
		}
	}
	return late
}

// retire ends an episode slot: the socket plays one episode fewer at a
// time from now on.
func (s *socket) retire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retireLocked()
}

func (s *socket) retireLocked() {
	s.live--
	if s.live == 0 {
		close(s.finished)
	}
}

// after runs fn once d has passed, unless the stream ends first (the
// slot then retires).
func (s *socket) after(d time.Duration, fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		s.retireLocked()
		return
	}
	var t *time.Timer
	s.pauses.Add(1)
	t = time.AfterFunc(d, func() {
		defer s.pauses.Done()
		s.mu.Lock()
		delete(s.timers, t)
		s.mu.Unlock()
		fn()
	})
	s.timers[t] = true
}
