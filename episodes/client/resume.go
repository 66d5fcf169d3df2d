package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/schemas"
)

// DefaultReconnectTimeout bounds the time a Resumer spends reconnecting
// and sending one call again.
const DefaultReconnectTimeout = 60 * time.Second

// The waits between two tries to reconnect: the first, doubled each
// time up to the cap, with jitter.
const (
	backoffStart = 50 * time.Millisecond
	backoffCap   = 2 * time.Second
)

// fatalClose are the close codes that say the client erred: reconnecting
// would not help.
var fatalClose = map[int]bool{
	websocket.CloseProtocolError: true, websocket.CloseUnsupportedData: true,
	websocket.CloseInvalidFramePayloadData: true, websocket.ClosePolicyViolation: true,
	websocket.CloseMessageTooBig: true, websocket.CloseMandatoryExtension: true,
}

// Resumer is a client that resumes (docs/protocol.md, "Clients that
// resume"): it sends every step with its turn, and when its connection
// is lost, or the server answers -32007 (or -32006 to a reset), it
// reconnects to the same URL, through the load balancer to a live
// replica, and sends the call again, waiting longer each time, for at
// most its reconnect timeout. A step keeps its turn, so the server runs
// it once; a reset whose reply was lost is sent as a new reset. It is
// safe for concurrent use; the steps of one episode are sent one at a
// time (each after the one before it has its reply), as rollout does,
// since a step that overtakes the one before it is refused.
type Resumer struct {
	url, token string
	timeout    time.Duration // 0: never reconnect
	turns      turns

	dialMu sync.Mutex // one dial at a time
	mu     sync.Mutex // guards cur, attempt, closed and every conn's inflight and retired
	cur    *conn      // where calls go; nil until one is dialled again
	// attempt counts the reconnects in a row with no answer between
	// them: the next wait grows with it.
	attempt int
	closed  bool

	reconnects atomic.Int64
}

// conn is one connection of a Resumer: it is closed once it is retired
// and has no call in flight.
type conn struct {
	c        *Client
	inflight int
	retired  bool
}

// DialResuming connects to url (ws://host:port/v1/ws), with a bearer
// token when token is not empty; reconnectTimeout (0: never reconnect)
// bounds each call's time reconnecting and sending it again.
func DialResuming(ctx context.Context, url, token string, reconnectTimeout time.Duration) (*Resumer, error) {
	if reconnectTimeout < 0 {
		return nil, fmt.Errorf("reconnect timeout must be 0 (never reconnect) or more, got %s", reconnectTimeout)
	}
	c, err := Dial(ctx, url, token)
	if err != nil {
		return nil, err
	}
	return &Resumer{url: url, token: token, timeout: reconnectTimeout, cur: &conn{c: c}, turns: newTurns()}, nil
}

// Reconnects is how many connections the Resumer made after its first.
func (r *Resumer) Reconnects() int64 { return r.reconnects.Load() }

// Call sends one request, again on a new connection while the rules
// say so (see Resumer), and decodes its result into result.
func (r *Resumer) Call(ctx context.Context, method string, params, result any) error {
	var since time.Time
	for {
		cn, err := r.conn(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		err = cn.c.Call(ctx, method, params, result)
		r.done(cn, err)
		if err == nil || ctx.Err() != nil || r.timeout == 0 || !again(method, params, err) {
			return err
		}
		if since.IsZero() {
			since = time.Now()
		}
		if time.Since(since) >= r.timeout {
			return err // it persisted: the caller gets it as it is
		}
		r.retire(cn)
	}
}

// again says whether a call that failed with err is sent again on a new
// connection: after a lost connection when it is safe to send twice, and
// after -32007 (and -32006 to a reset).
func again(method string, params any, err error) bool {
	var rpc *schemas.Error
	if errors.As(err, &rpc) {
		return rpc.Code == schemas.CodeElsewhere || rpc.Code == schemas.CodeDraining && method == schemas.MethodReset
	}
	var ce *websocket.CloseError
	if !errors.Is(err, ErrClosed) || errors.As(err, &ce) && fatalClose[ce.Code] {
		return false
	}
	if p, ok := params.(schemas.StepParams); ok {
		return p.Turn > 0 // a step without its turn may have run: it is not sent twice
	}
	return true
}

// conn returns the connection to send on, dialling a new one when the
// last was retired, and counts the call in flight on it.
func (r *Resumer) conn(ctx context.Context) (*conn, error) {
	if cn, err := r.acquire(); cn != nil || err != nil {
		return cn, err
	}
	r.dialMu.Lock()
	defer r.dialMu.Unlock()
	deadline := time.Now().Add(r.timeout)
	for {
		if cn, err := r.acquire(); cn != nil || err != nil {
			return cn, err // another caller dialled meanwhile
		}
		if err := r.wait(ctx, deadline); err != nil {
			return nil, err
		}
		c, err := Dial(ctx, r.url, r.token)
		if err == nil {
			r.install(c)
			continue
		}
		if ctx.Err() != nil || refused(err) || !time.Now().Before(deadline) {
			return nil, fmt.Errorf("reconnecting for %s: %w", r.timeout, err)
		}
	}
}

// acquire counts a call in flight on the current connection; nil when
// there is none. It fails once the Resumer is closed.
func (r *Resumer) acquire() (*conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if r.cur == nil {
		return nil, nil
	}
	r.cur.inflight++
	return r.cur, nil
}

// wait sleeps the backoff of the next try, jittered, and no later than
// deadline.
func (r *Resumer) wait(ctx context.Context, deadline time.Time) error {
	r.mu.Lock()
	d := backoff(r.attempt)
	r.attempt++
	r.mu.Unlock()
	t := time.NewTimer(min(d, max(time.Until(deadline), 0)))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the wait before try attempt (0 for the first): the start
// doubled each time up to the cap, its upper half drawn at random so
// that the clients of a replica that died do not come back all at once.
func backoff(attempt int) time.Duration {
	full := min(backoffCap, backoffStart<<min(attempt, 16))
	return full/2 + rand.N(full/2+1)
}

// refused says whether a dial failed for a reason trying again cannot
// change: a wrong token, or no such path.
func refused(err error) bool {
	var he *HandshakeError
	return errors.As(err, &he) && (he.Status == 400 || he.Status == 401 || he.Status == 403 || he.Status == 404)
}

// install makes c the connection calls go to.
func (r *Resumer) install(c *Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		go c.Close()
		return
	}
	r.cur = &conn{c: c}
	r.reconnects.Add(1)
}

// done ends a call on cn: a reply from the current connection (other
// than -32007) resets the backoff, and a retired connection with no call
// left in flight is closed.
func (r *Resumer) done(cn *conn, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cn.inflight--
	var rpc *schemas.Error
	if cn == r.cur && (err == nil || errors.As(err, &rpc) && rpc.Code != schemas.CodeElsewhere) {
		r.attempt = 0
	}
	if cn.retired && cn.inflight == 0 {
		go cn.c.Close()
	}
}

// retire sends no more calls on cn; it is closed once its calls in
// flight have their replies.
func (r *Resumer) retire(cn *conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == cn {
		r.cur = nil
	}
	if !cn.retired && cn.inflight == 0 {
		go cn.c.Close()
	}
	cn.retired = true
}

// Close closes every connection; calls made after fail with ErrClosed.
func (r *Resumer) Close() error {
	r.mu.Lock()
	r.closed = true
	cn := r.cur
	r.cur = nil
	if cn != nil {
		cn.retired = true
	}
	r.mu.Unlock()
	if cn == nil {
		return nil
	}
	return cn.c.Close()
}
