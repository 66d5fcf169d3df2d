// Package peer gives tests clients that connect from an address of their
// own in the loopback range (127.0.0.N), so that a server on 127.0.0.1
// sees them as different clients, as it would see different hosts.
package peer

import (
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// Addr is the loopback address of peer n (1 to 254): 127.0.0.n.
func Addr(n int) string { return net.IPv4(127, 0, 0, byte(n)).String() }

func dialer(n int) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(n))}, Timeout: 30 * time.Second}
}

// HTTPClient is an HTTP client whose connections come from peer n.
func HTTPClient(n int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = dialer(n).DialContext
	return &http.Client{Transport: tr}
}

// WSDialer is a WebSocket dialer whose connections come from peer n.
func WSDialer(n int) *websocket.Dialer {
	return &websocket.Dialer{NetDialContext: dialer(n).DialContext, HandshakeTimeout: 30 * time.Second}
}
