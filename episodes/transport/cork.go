package transport

import (
	"net"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/base/corkconn"
)

// corkMax is the most a socket's corked connection gathers before the
// writer's own write sends it.
const corkMax = 64 << 10

// WrapListener wraps ln for Serve's HTTP server: a WebSocket's writer
// then sends the replies it finds queued in one system call. Serve wraps
// its listener itself; a caller that runs Handler on an HTTP server of
// its own may wrap that server's listener with it for the same effect.
func WrapListener(ln net.Listener) net.Listener { return corkconn.WrapListener(ln, corkMax) }

// corkOf is the corked connection under ws, or nil.
func corkOf(ws *websocket.Conn) *corkconn.Conn {
	c, _ := ws.NetConn().(*corkconn.Conn)
	return c
}
