// Package client is the Go client of the sqlgym protocol: one WebSocket,
// many requests in flight on it, replies matched to callers by id. The
// REPL, the benchmark tool and the tests use it.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/base/corkconn"
	"github.com/sqlgym/sqlgym/schemas"
)

// ErrClosed is returned for calls on a client whose connection has ended.
var ErrClosed = errors.New("client: connection closed")

// Client is a connection to a sqlgym server. It is safe for concurrent use.
type Client struct {
	ws     *websocket.Conn
	conn   *corkconn.Conn // under ws: a caller's frame and those that queue behind it go out in one write(2)
	nextID atomic.Int64
	done   chan struct{} // closed when the reader ends
	err    error         // why the reader ended; read after done

	wmu     sync.Mutex   // serializes writes: gorilla allows one writer at a time
	waiting atomic.Int32 // writers waiting for wmu

	mu      sync.Mutex // guards pending
	pending map[string]chan *response
}

// response is a reply as the client reads it: the result kept raw, so it
// decodes straight into the caller's type with nothing reordered. Replies
// are decoded with goccy/go-json, which reads valid JSON as encoding/json
// does at about twice the speed: the client often shares its machine with
// the server it drives (sqlgym bench), and what it spends is taken from
// the server.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *schemas.Error  `json:"error"`
}

// readBufferSize is the client's read buffer: replies that arrived
// together are read with one system call.
const readBufferSize = 64 << 10

// Dial connects to url (ws://host:port/v1/ws), with a bearer token when
// token is not empty.
func Dial(ctx context.Context, url, token string) (*Client, error) {
	ws, bc, err := dial(ctx, url, token)
	if err != nil {
		return nil, err
	}
	c := &Client{ws: ws, conn: bc, done: make(chan struct{}), pending: map[string]chan *response{}}
	go c.readLoop()
	return c, nil
}

// dial opens the WebSocket over a corked connection: the client often
// shares its machine with the server it drives, and the system calls it
// spends are taken from the server.
func dial(ctx context.Context, url, token string) (*websocket.Conn, *corkconn.Conn, error) {
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	var bc *corkconn.Conn
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, ReadBufferSize: readBufferSize,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			bc = corkconn.New(conn, 0)
			return bc, nil
		}}
	ws, resp, err := d.DialContext(ctx, url, h)
	if err != nil {
		if resp != nil {
			return nil, nil, &HandshakeError{URL: url, Status: resp.StatusCode, StatusText: resp.Status, Err: err}
		}
		return nil, nil, fmt.Errorf("dial %s: %w", url, err)
	}
	ws.SetReadLimit(64 << 20)
	return ws, bc, nil
}

// HandshakeError is a dial the server answered with an HTTP status
// instead of upgrading to a WebSocket.
type HandshakeError struct {
	URL        string
	Status     int    // the HTTP status code, such as 401
	StatusText string // the status line's text, such as "401 Unauthorized"
	Err        error
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("dial %s: %v (HTTP %s)", e.URL, e.Err, e.StatusText)
}

// Unwrap returns the dialer's error.
func (e *HandshakeError) Unwrap() error { return e.Err }

// readLoop hands each reply to the caller waiting for its id.
func (c *Client) readLoop() {
	defer close(c.done)
	for {
		_, frame, err := c.ws.ReadMessage()
		if err != nil {
			c.err = err
			return
		}
		var batch []*response
		if len(frame) > 0 && frame[0] == '[' {
			if gojson.Unmarshal(frame, &batch) != nil {
				continue
			}
		} else {
			var r response
			if gojson.Unmarshal(frame, &r) != nil {
				continue
			}
			batch = []*response{&r}
		}
		for _, r := range batch {
			c.deliver(r)
		}
	}
}

func (c *Client) deliver(r *response) {
	c.mu.Lock()
	ch, ok := c.pending[string(r.ID)]
	delete(c.pending, string(r.ID))
	c.mu.Unlock()
	if ok {
		ch <- r
	}
}

// Call sends one request and decodes its result into result (which may be
// nil). A JSON-RPC error comes back as a *schemas.Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	id := strconv.FormatInt(c.nextID.Add(1), 10)
	raw, err := schemas.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encode params: %w", method, err)
	}
	frame, _ := schemas.Marshal(schemas.Request{JSONRPC: "2.0", ID: json.RawMessage(id), Method: method, Params: raw})
	ch := make(chan *response, 1)
	c.mu.Lock()
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() { c.mu.Lock(); delete(c.pending, id); c.mu.Unlock() }()
	if err := c.write(frame); err != nil {
		// A connection that failed a write is done for: what was sent on
		// it may be lost, as when it closes.
		return fmt.Errorf("%s: %w: %w", method, ErrClosed, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return r.Error
		}
		if result == nil {
			return nil
		}
		if err := gojson.Unmarshal(r.Result, result); err != nil {
			return fmt.Errorf("%s: decode result: %w", method, err)
		}
		return nil
	case <-c.done:
		return fmt.Errorf("%s: %w: %w", method, ErrClosed, c.err)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// WriteRaw sends a frame as it is, for tests of malformed input; its reply
// (if any) is not matched to a caller.
func (c *Client) WriteRaw(frame []byte) error { return c.write(frame) }

func (c *Client) write(frame []byte) error {
	c.waiting.Add(1)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.waiting.Add(-1)
	c.conn.Cork()
	c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	err := c.ws.WriteMessage(websocket.TextMessage, frame)
	if err == nil && c.waiting.Load() > 0 {
		return nil // a writer is waiting: its flush sends this frame with its own
	}
	if ferr := c.conn.Flush(); ferr != nil && err == nil {
		// Frames of callers that returned before this flush were lost
		// with it: ending the connection ends their calls too.
		c.conn.Close()
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// Close ends the connection with a close handshake, waiting up to a
// second for the server's close frame.
func (c *Client) Close() error {
	c.wmu.Lock()
	err := c.ws.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	c.wmu.Unlock()
	select {
	case <-c.done:
	case <-time.After(time.Second):
	}
	if cerr := c.ws.Close(); err == nil {
		err = cerr
	}
	<-c.done
	if errors.Is(err, websocket.ErrCloseSent) {
		return nil
	}
	return err
}
