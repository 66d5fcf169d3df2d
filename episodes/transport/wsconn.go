package transport

import (
	"context"
	"errors"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jonboulle/clockwork"
	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/base/fairshare"
)

// wsConn is one WebSocket connection: a reader goroutine, and a writer
// only while something is to be written (see writerState). The reader
// runs each frame as a job on the server's workers. Once the reader and
// every job have ended, the writer closes the socket (finish).
type wsConn struct {
	s       *Server
	ws      *websocket.Conn
	budget  *connBudget     // what the connection holds, against MaxConnBytes
	w       *writeSched     // who writes what is due
	ctx     context.Context // ends when the connection is asked to close
	runCtx  context.Context // what its calls run under: the server's base, naming the connection's client
	cancel  context.CancelFunc
	pinger  clockwork.Timer   // makes a ping due every PingInterval
	closing atomic.Bool       // the server has asked the connection to close
	room    *fairshare.Ticket // its room in MaxConnections, reclaimable while idle (fair.go)
	running atomic.Int64      // frames read and not yet answered
	used    atomic.Int64      // unix nanoseconds of the last frame read or answered
	// stopCode and stopText are the close frame a shutdown sends; set
	// before the writer is asked to stop.
	stopCode int
	stopText string
	parsed   chan struct{} // a job tells the reader its frame is parsed

	// Only the reader goroutine touches inMessage (the pong handler runs
	// on it, inside the read calls).
	inMessage bool
}

// serveConn serves an upgraded connection until the peer goes away or
// the server shuts down. It returns at once: the reading goes on in a
// goroutine of its own, so that the HTTP server's goroutine for the
// connection ends and with it what it held (its buffered writer, the
// upgrade request, a deep stack). The connection holds its room in
// MaxConnections until it is closed.
func (s *Server) serveConn(ws *websocket.Conn, room *fairshare.Ticket) {
	c := &wsConn{s: s, ws: ws, budget: newConnBudget(s.cfg.MaxConnBytes, s.cfg.Clock), parsed: make(chan struct{}, 1), room: room}
	c.used.Store(time.Now().UnixNano())
	c.w = newWriteSched(c.budget, s.cfg.ReplyDelay, s.cfg.Clock, c.write)
	if cc := corkOf(ws); cc != nil {
		cc.SetOnFlush(s.metrics.flushes.Inc)
	}
	c.ctx, c.cancel = context.WithCancel(s.base)
	c.runCtx = fairshare.WithClient(s.base, fairshare.ClientOfAddr(ws.RemoteAddr().String()))
	c.pinger = s.cfg.Clock.AfterFunc(math.MaxInt64, c.pingDue)
	c.pinger.Reset(s.cfg.PingInterval) // armed only once c.pinger is set: pingDue re-arms it
	if !s.track(c) {
		c.pinger.Stop()
		c.cancel()
		c.closeFrame(websocket.CloseGoingAway, "server shutting down")
		ws.Close()
		room.Release()
		return
	}
	room.Hold(c)
	s.metrics.connections.Inc()
	go c.read()
}

// read runs the reading side to its end, waits for the jobs (steps still
// running finish; their replies go out if the socket still can), then
// has the socket closed once the writer is done.
func (c *wsConn) read() {
	var jobs sync.WaitGroup
	c.readLoop(&jobs)
	jobs.Wait()
	if c.w.end() {
		c.write()
	}
}

// finish closes the socket, with a normal close frame unless the writer
// had stopped, and gives back what the connection held. The writer calls
// it once, when nothing more can be due.
func (c *wsConn) finish() {
	if !c.w.isClosed() {
		c.closeFrame(websocket.CloseNormalClosure, "")
	}
	c.pinger.Stop()
	c.w.stopTimer()
	c.cancel()
	c.ws.Close()
	c.room.Release()
	c.s.metrics.connections.Dec() // after the room: whoever sees the count drop can connect
	c.s.untrack(c)                // last: Server.Close returns once every connection got here
}

// readLoop reads frames and starts a job for each, until the socket fails
// or closes. It stops reading while MaxInFlight jobs run or while the
// connection holds MaxConnBytes (frames being run and replies not yet
// written): that pushes back on the client. It takes a job's slot before
// reading its frame, so a frame once read is always run (a step's place
// in its episode's queue is never lost), and it sets the read deadline
// just before each read, so time spent waiting for room never counts
// against the peer. Once the server is closing, frames are read (for the
// peer's close frame) but no longer run.
func (c *wsConn) readLoop(jobs *sync.WaitGroup) {
	cfg := &c.s.cfg
	c.ws.SetReadLimit(cfg.MaxFrameBytes)
	c.ws.SetPongHandler(func(string) error {
		if c.inMessage {
			return nil // a message must complete within its own deadline
		}
		return c.extendDeadline()
	})
	slots := make(chan struct{}, cfg.MaxInFlight)
	for {
		if !c.waitForRoom(slots) {
			return
		}
		c.extendDeadline()
		kind, frame, held, err := c.readFrame()
		if err != nil {
			c.readFailed(err)
			return
		}
		if c.stopping() {
			c.s.reading.release(held)
			<-slots
			continue
		}
		if kind != websocket.TextMessage {
			frame = nil // answered as a parse error: text frames only
		}
		counted := c.w.start(len(frame))
		c.running.Add(1)
		c.used.Store(time.Now().UnixNano())
		jobs.Add(1)
		c.s.workers.Go(func() { c.runFrame(frame, held, counted, slots, jobs) })
		<-c.parsed
	}
}

// runFrame runs one frame, on a worker. It parses the frame first (a step
// takes its place in its episode's queue then) while the reader waits, so
// frames take their places in the order they arrived; then it lets the
// reader read on and runs the calls. Parsing here rather than on the
// reader keeps the reader's stack, which an idle socket holds, to what
// reading needs.
func (c *wsConn) runFrame(frame []byte, held, counted int64, slots chan struct{}, jobs *sync.WaitGroup) {
	defer jobs.Done()
	job := c.s.cfg.Dispatcher.Prepare(frame)
	c.s.reading.release(held) // the frame is parsed; what the job keeps is counted in counted
	c.parsed <- struct{}{}
	write := c.w.done(counted, job.Run(c.runCtx))
	c.used.Store(time.Now().UnixNano())
	c.running.Add(-1)
	releaseFrame(frame)
	<-slots
	if write {
		c.write() // no writer ran: this job's goroutine writes, then goes back to the workers
	}
}

// waitForRoom takes a job slot and waits until the connection holds less
// than MaxConnBytes. A connection whose replies have waited at the limit
// with no byte written for StallTimeout is closed: its client reads
// nothing; then it returns false. Once the writer has stopped, replies
// are dropped and there is always room.
func (c *wsConn) waitForRoom(slots chan struct{}) bool {
	slots <- struct{}{} // jobs end within their own timeouts
	if c.budget.hasRoom() {
		return true
	}
	c.s.metrics.readPauses.Inc()
	stall, clock := c.s.cfg.StallTimeout, c.s.cfg.Clock
	since := clock.Now()
	tick := clock.NewTicker(stall / 4)
	defer tick.Stop()
	for !c.budget.hasRoom() {
		select {
		case <-c.budget.roomAvail:
		case <-tick.Chan():
			if stalled, queued := c.budget.stalled(stall); stalled && clock.Since(since) >= stall {
				c.dropStalled(queued, clock.Since(since))
				return false
			}
		}
	}
	return true
}

// readFrame reads one message, taking room in the server's reading budget
// as it arrives. Once a message has begun it must end within PongWait,
// however many control frames come meanwhile.
func (c *wsConn) readFrame() (int, []byte, int64, error) {
	kind, r, err := c.ws.NextReader()
	if err != nil {
		return 0, nil, 0, err
	}
	c.inMessage = true
	defer func() { c.inMessage = false }()
	deadline := time.Now().Add(c.s.cfg.PongWait)
	c.setMessageDeadline(deadline)
	frame, held, err := c.s.reading.read(c.ctx, r, c.s.cfg.MaxFrameBytes, 2*c.s.cfg.PongWait, func(waited time.Duration) {
		deadline = deadline.Add(waited) // waiting for room is not the peer's time
		c.setMessageDeadline(deadline)
	})
	if err != nil {
		return 0, nil, 0, &messageError{err}
	}
	return kind, frame, held, nil
}

func (c *wsConn) setMessageDeadline(t time.Time) {
	if !c.stopping() {
		c.ws.SetReadDeadline(t)
	}
}

// messageError is a failure while a message was arriving.
type messageError struct{ err error }

func (e *messageError) Error() string { return "read message: " + e.err.Error() }
func (e *messageError) Unwrap() error { return e.err }

// extendDeadline gives the peer PongWait more to send something, unless
// the server is closing the connection.
func (c *wsConn) extendDeadline() error {
	if c.stopping() {
		return nil
	}
	return c.ws.SetReadDeadline(time.Now().Add(c.s.cfg.PongWait))
}

// stopping reports whether the server has asked the connection to close.
func (c *wsConn) stopping() bool { return c.closing.Load() }

// readFailed ends the reading side: a message that did not arrive whole
// in time, or could not get room, closes the socket with 1008 and a log
// line; other errors are the peer going away.
func (c *wsConn) readFailed(err error) {
	var ce *websocket.CloseError
	if errors.As(err, &ce) || errors.Is(err, websocket.ErrCloseSent) || c.stopping() {
		return
	}
	var me *messageError
	var ne net.Error
	if errors.As(err, &me) && (errors.Is(err, errReadBudget) || errors.As(err, &ne) && ne.Timeout()) {
		c.s.metrics.slowMessages.Inc()
		c.s.cfg.Logger.Warn("closing a connection whose message did not arrive in time",
			zap.String("remote", c.ws.RemoteAddr().String()), zap.Duration("limit", c.s.cfg.PongWait), zap.Error(err))
		c.closeFrame(websocket.ClosePolicyViolation, "message not completed within "+c.s.cfg.PongWait.String())
		return
	}
	c.s.cfg.Logger.Debug("websocket read ended", zap.Error(err))
}

// dropStalled closes a connection whose client has read nothing while
// its replies waited at the limit.
func (c *wsConn) dropStalled(queued int64, waited time.Duration) {
	c.s.cfg.Logger.Warn("closing a connection whose client reads nothing",
		zap.String("remote", c.ws.RemoteAddr().String()), zap.Int64("queued_bytes", queued),
		zap.Duration("stalled", waited), zap.Int64("max_conn_bytes", c.s.cfg.MaxConnBytes))
	c.s.metrics.stalledConns.Inc() // after the log line: whoever sees the count finds the line
	c.closeFrame(websocket.ClosePolicyViolation, "client read nothing for "+c.s.cfg.StallTimeout.String()+" with replies waiting")
	c.ws.Close() // unblocks the writer
}

func (c *wsConn) closeFrame(code int, text string) {
	msg := websocket.FormatCloseMessage(code, text)
	c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(c.s.cfg.CloseWait))
}

// shutdown asks the connection to close with a close frame, sent by a
// writer on the server's workers (not by the caller: a client that reads
// nothing could hold it for CloseWait).
func (c *wsConn) shutdown() { c.shutdownWith(websocket.CloseGoingAway, "server shutting down") }

// shutdownWith is shutdown with the close frame's code and text; false
// when the connection was closing already.
func (c *wsConn) shutdownWith(code int, text string) bool {
	if !c.closing.CompareAndSwap(false, true) {
		return false
	}
	c.stopCode, c.stopText = code, text
	c.cancel()
	if c.w.stop() {
		c.s.workers.Go(c.write)
	}
	return true
}
