package transport

import (
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/base/corkconn"
	"github.com/sqlgym/sqlgym/episodes/jsonrpc"
)

// writeChunk is how much of a reply is written between two checks of the
// writer's progress.
const writeChunk = 16 << 10

// write is the connection's writer, run by whoever made something due
// while no writer ran (writeSched.startWriter): a job with its reply, the
// ping timer, the shutdown, the reader at the end. It is the only one to
// write data frames. It does what is due until nothing is, then returns;
// an idle connection thus has no writer and holds no stack for one.
func (c *wsConn) write() {
	cc := corkOf(c.ws)
	for {
		t, b := c.w.next()
		if cc != nil && (t == taskReply || t == taskPing || t == taskStop) {
			cc.Cork()
		}
		switch t {
		case taskNone:
			return
		case taskFlush:
			c.flush(cc)
		case taskStop:
			c.stopWriting()
		case taskPing:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.s.cfg.WriteTimeout)); err != nil {
				c.writeFailed()
			}
		case taskReply:
			c.s.metrics.replies.Inc() // before the reply can reach its reader
			if err := c.writeReply(b); err != nil {
				c.writeFailed()
				continue
			}
			jsonrpc.ReleaseFrame(b) // gorilla has copied it out
		case taskEnd:
			c.finish()
			return
		}
	}
}

// flush sends what the writer gathered on cc (nil: the connection
// writes through, each frame as it is written), within PongWait: a peer
// that takes in nothing for that long is gone.
func (c *wsConn) flush(cc *corkconn.Conn) {
	if cc == nil {
		return
	}
	if err := cc.Uncork(time.Now().Add(c.s.cfg.PongWait)); err != nil {
		c.writeFailed()
	}
}

// writeFailed ends the writing: replies are dropped, and the socket is
// closed, which ends the reader. What was gathered is sent first, within
// CloseWait: it may hold the close frame the reader answered the peer's
// with, the very reason the write failed (gorilla refuses data frames
// once a close went out).
func (c *wsConn) writeFailed() {
	c.w.close()
	if cc := corkOf(c.ws); cc != nil {
		cc.Uncork(time.Now().Add(c.s.cfg.CloseWait))
	}
	c.ws.Close()
}

// pingDue runs every PingInterval, from the timer: it makes a ping due
// and re-arms itself, until the socket closes.
func (c *wsConn) pingDue() {
	if c.w.ping(func() { c.pinger.Reset(c.s.cfg.PingInterval) }) {
		c.write()
	}
}

// writeReply writes one reply frame in chunks, each within PongWait: a
// peer that takes in nothing for that long is gone. Progress is recorded
// after each chunk, for the reader's stall check.
func (c *wsConn) writeReply(b []byte) error {
	c.ws.SetWriteDeadline(time.Now().Add(c.s.cfg.PongWait))
	w, err := c.ws.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	for off := 0; off < len(b); off += writeChunk {
		c.ws.SetWriteDeadline(time.Now().Add(c.s.cfg.PongWait))
		if _, err := w.Write(b[off:min(off+writeChunk, len(b))]); err != nil {
			return err
		}
		c.budget.wrote(len(b), false)
	}
	if err := w.Close(); err != nil {
		return err
	}
	c.budget.wrote(len(b), true)
	return nil
}

// stopWriting sends the shutdown close frame. Replies still to come are
// dropped: after a close frame no data frame may follow. The steps
// themselves complete and are recorded; a client that reconnects finds
// them with episode.get. The reader sees the peer's close frame, or the
// CloseWait deadline, and ends.
func (c *wsConn) stopWriting() {
	c.closeFrame(c.stopCode, c.stopText)
	c.ws.SetReadDeadline(time.Now().Add(c.s.cfg.CloseWait))
}
