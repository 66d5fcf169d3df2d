package transport

import (
	"time"

	"github.com/gorilla/websocket"
)

// The rooms of MaxConnections are shared among clients (their
// addresses) by base/fairshare: at the bound, a client holding less
// than its share is admitted by closing the least recently used idle
// WebSocket of the client holding the most. An HTTP request's room is
// never reclaimed: it is in flight for as long as it holds one.

// reclaimedText is the close frame's text of a reclaimed socket.
const reclaimedText = "connection reclaimed for a client below its fair share"

// LastUsed is when the socket last read a frame or answered one.
func (c *wsConn) LastUsed() time.Time { return time.Unix(0, c.used.Load()) }

// Reclaim closes the socket, as a shutdown does but with 1013 (try again
// later), unless a frame of it is being run; its room is given back at
// once. Its episodes stay live, as after any socket's end.
func (c *wsConn) Reclaim() bool {
	if c.running.Load() > 0 || !c.shutdownWith(websocket.CloseTryAgainLater, reclaimedText) {
		return false
	}
	c.room.Release()
	return true
}
