package rpc

import (
	"time"

	"github.com/gorilla/websocket"
)

// writeChunk is how much of a reply is written between two checks of the
// writer's progress.
const writeChunk = 16 << 10

// writeLoop is the only goroutine that writes data frames. It writes the
// queued replies in order, pings the peer, and sends a close frame when
// the jobs have ended or the server shuts down.
func (c *wsConn) writeLoop() {
	defer c.q.close()
	defer close(c.dead)
	ping := time.NewTicker(c.s.cfg.PingInterval)
	defer ping.Stop()
	for {
		select {
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.s.cfg.WriteTimeout)); err != nil {
				c.ws.Close()
				return
			}
		case <-c.stop:
			c.stopWriting()
			return
		default:
		}
		if b := c.q.next(); b != nil {
			if err := c.writeReply(b); err != nil {
				c.ws.Close() // unblocks the reader
				return
			}
			ReleaseFrame(b) // gorilla has copied it out
			continue
		}
		select {
		case <-c.q.readyOut:
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.s.cfg.WriteTimeout)); err != nil {
				c.ws.Close()
				return
			}
		case <-c.eof:
			if c.q.empty() {
				c.closeFrame(websocket.CloseNormalClosure, "")
				return
			}
		case <-c.stop:
			c.stopWriting()
			return
		}
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
		c.q.wrote(len(b), false)
	}
	if err := w.Close(); err != nil {
		return err
	}
	c.q.wrote(len(b), true)
	return nil
}

// stopWriting sends the shutdown close frame. Replies still to come are
// dropped: after a close frame no data frame may follow. The steps
// themselves complete and are recorded; a client that reconnects finds
// them with episode.get. The reader sees the peer's close frame, or the
// CloseWait deadline, and ends.
func (c *wsConn) stopWriting() {
	c.q.close()
	c.closeFrame(websocket.CloseGoingAway, "server shutting down")
	c.ws.SetReadDeadline(time.Now().Add(c.s.cfg.CloseWait))
}
