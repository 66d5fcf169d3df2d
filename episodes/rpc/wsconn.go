package rpc

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
)

// wsConn is one WebSocket connection: one reader (the handler goroutine),
// one writer, and a goroutine per frame in flight. All of them are joined
// before serveConn returns.
type wsConn struct {
	s      *Server
	ws     *websocket.Conn
	q      *connBytes
	ctx    context.Context // ends when the connection is asked to close
	cancel context.CancelFunc
	dead   chan struct{} // closed when the writer stops: replies are dropped
	stop   chan struct{} // closed to ask the writer to send a close frame and stop
	eof    chan struct{} // closed when every job has ended: the writer finishes the queue and closes
	once   sync.Once     // guards close(stop)

	// Only the reader goroutine touches inMessage (the pong handler runs
	// on it, inside the read calls).
	inMessage bool
}

// serveConn runs the connection until the peer goes away or the server
// shuts down.
func (s *Server) serveConn(ws *websocket.Conn) {
	c := &wsConn{s: s, ws: ws, q: newConnBytes(s.cfg.MaxConnBytes),
		dead: make(chan struct{}), stop: make(chan struct{}), eof: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(s.base)
	defer c.cancel()
	if !s.track(c) {
		c.closeFrame(websocket.CloseGoingAway, "server shutting down")
		ws.Close()
		return
	}
	defer s.untrack(c)
	s.metrics.connections.Inc()
	defer s.metrics.connections.Dec()

	var writer sync.WaitGroup
	writer.Go(c.writeLoop)
	var jobs sync.WaitGroup
	c.readLoop(&jobs)
	jobs.Wait() // steps still running finish; their replies go out if the socket still can
	close(c.eof)
	writer.Wait()
	ws.Close()
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
		job := c.s.cfg.Dispatcher.Prepare(frame)
		c.s.reading.release(held) // the frame is parsed; what the job keeps is counted below
		counted := c.q.hold(len(frame))
		jobs.Add(1)
		c.s.workers.Go(func() {
			defer jobs.Done()
			defer func() { <-slots }()
			c.q.done(counted, job.Run(c.s.base))
		})
	}
}

// waitForRoom takes a job slot and waits until the connection holds less
// than MaxConnBytes. A connection whose replies have waited at the limit
// with no byte written for StallTimeout is closed: its client reads
// nothing. False when the connection is ending.
func (c *wsConn) waitForRoom(slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
	case <-c.dead:
		return false
	}
	if c.q.hasRoom() {
		return true
	}
	c.s.metrics.readPauses.Inc()
	stall := c.s.cfg.StallTimeout
	since := time.Now()
	tick := time.NewTicker(stall / 4)
	defer tick.Stop()
	for !c.q.hasRoom() {
		select {
		case <-c.q.roomAvail:
		case <-c.dead:
			return false
		case <-tick.C:
			if stalled, queued := c.q.stalled(stall); stalled && time.Since(since) >= stall {
				c.dropStalled(queued, time.Since(since))
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
func (c *wsConn) stopping() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

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

// shutdown asks the connection to close with a close frame.
func (c *wsConn) shutdown() {
	c.once.Do(func() { close(c.stop); c.cancel() })
}
