package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/base/fairshare"
	"github.com/sqlgym/sqlgym/episodes/jsonrpc"
)

// ServerConfig configures a Server. Zero values mean the defaults.
type ServerConfig struct {
	Dispatcher    *jsonrpc.Dispatcher
	Registry      *prometheus.Registry // the manager's (Manager.Metrics().Registry): /metrics serves it, the transport's metrics join it
	Logger        *zap.Logger
	Token         string        // when set, /v1/ws and /v1/rpc need "Authorization: Bearer <Token>" (or, on an upgrade, its subprotocol: auth.go)
	MaxFrameBytes int64         // largest frame or request body read (DefaultMaxFrameBytes)
	MaxInFlight   int           // frames in flight per connection (4096)
	PingInterval  time.Duration // how often the server pings (30s)
	PongWait      time.Duration // how long the peer may stay silent (2 x PingInterval)
	WriteTimeout  time.Duration // bound on one frame's write (10s)
	CloseWait     time.Duration // how long shutdown waits for the peer's close frame (2s)

	MaxConnBytes    int64         // bytes one socket's running frames and unwritten replies may hold before reading stops (32 MiB)
	StallTimeout    time.Duration // how long a socket may hold MaxConnBytes with nothing written before it is closed (10s)
	MaxReadingBytes int64         // bytes of messages being received, over every socket and HTTP request (128 MiB)
	MaxConnections  int           // open WebSockets and HTTP RPC requests at once (4096)

	// MaxTCPConnections bounds the TCP connections open at once, idle
	// keep-alive ones and upgraded WebSockets included: past it Serve's
	// listener closes a new connection as soon as it is accepted
	// (DefaultMaxTCPConnections).
	MaxTCPConnections int
	IdleConnTimeout   time.Duration // how long a keep-alive HTTP connection may wait for its next request (60s)
	HeaderTimeout     time.Duration // how long a request's headers may take to arrive, from the connection or its first byte (10s)

	// Without a Token, /v1/ws and /v1/rpc answer only requests addressed
	// to a loopback name or address and sent by no page, or a loopback
	// page (guard.go). AllowedOrigins are further Origin values accepted
	// (scheme://host[:port], as browsers send them); AllowedHosts further
	// Host names; AllowIPHosts accepts any IP address as the Host, for a
	// server listening beyond loopback without a token (sqlgym serve
	// --insecure): a DNS rebinding attack arrives under a name.
	AllowedOrigins []string
	AllowedHosts   []string
	AllowIPHosts   bool

	// ReplyDelay is how long a reply may wait for the replies of the
	// other frames its socket is running, so that one write sends them
	// together (0: DefaultReplyDelay; negative: none waits, which is
	// what sqlgym serve --reply-delay 0 sets).
	ReplyDelay time.Duration

	// Clock runs the timers of a socket's life: its pings, the gathering
	// of its replies and its stall timeout (nil: the real clock). Tests
	// give a fake clock and move it by hand instead of waiting. Socket
	// deadlines, which the operating system enforces, stay on real time.
	Clock clockwork.Clock

	// Mounts are the other surfaces the server carries beside sqlgym/1
	// (OpenEnv's, MCP's).
	Mounts []Mount

	// Ready is what GET /readyz checks (ready.go).
	Ready ReadyConfig
}

// Mount is a surface served under Prefix (its path and every path below
// it) behind what guards /v1/ws and /v1/rpc: the token, or without one
// the Host and Origin checks, and --max-connections, whose room a request
// holds until its handler returns (a handler serving a WebSocket holds it
// for the socket's life). Its handler sees the whole path.
type Mount struct {
	Prefix  string // "/openenv": no trailing slash
	Handler http.Handler
	// OwnLogin serves the mount without the bearer token check: its
	// handler signs in its own users (the web console's login form and
	// session cookie, since a browser cannot send the header). The Host
	// and Origin checks of a server without a token still apply.
	OwnLogin bool
}

// Defaults of the server's bounds on what clients can make it hold.
const (
	DefaultMaxFrameBytes   = 4 << 20
	DefaultMaxConnBytes    = 32 << 20
	DefaultStallTimeout    = 10 * time.Second
	DefaultMaxReadingBytes = 128 << 20
	DefaultMaxConnections  = 4096
	DefaultReplyDelay      = time.Millisecond
)

func (c *ServerConfig) setDefaults() {
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 4096
	}
	if c.PingInterval <= 0 {
		c.PingInterval = 30 * time.Second
	}
	if c.PongWait <= 0 {
		c.PongWait = 2 * c.PingInterval
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.CloseWait <= 0 {
		c.CloseWait = 2 * time.Second
	}
	if c.MaxConnBytes <= 0 {
		c.MaxConnBytes = DefaultMaxConnBytes
	}
	if c.Clock == nil {
		c.Clock = clockwork.NewRealClock()
	}
	if c.ReplyDelay == 0 {
		c.ReplyDelay = DefaultReplyDelay
	}
	if c.StallTimeout <= 0 {
		c.StallTimeout = DefaultStallTimeout
	}
	if c.MaxReadingBytes <= 0 {
		c.MaxReadingBytes = DefaultMaxReadingBytes
	}
	c.MaxReadingBytes = max(c.MaxReadingBytes, c.MaxFrameBytes+1) // one whole frame always fits
	if c.MaxConnections <= 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	if c.MaxTCPConnections <= 0 {
		c.MaxTCPConnections = DefaultMaxTCPConnections()
	}
	if c.IdleConnTimeout <= 0 {
		c.IdleConnTimeout = DefaultIdleConnTimeout
	}
	if c.HeaderTimeout <= 0 {
		c.HeaderTimeout = DefaultHeaderTimeout
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
}

// Server serves the protocol over WebSocket (/v1/ws) and HTTP (/v1/rpc),
// with /healthz, /livez, /readyz and /metrics beside them.
type Server struct {
	cfg      ServerConfig
	base     context.Context // steps run under it; cancelled by Close
	cancel   context.CancelFunc
	upgrader websocket.Upgrader
	metrics  *metrics
	guard    *guard
	reading  *readBudget     // bytes of messages being received
	workers  *workers        // the goroutines jobs run on
	rooms    *fairshare.Pool // MaxConnections: WebSockets and HTTP requests being served, shared among clients (fair.go)
	ready    *readiness      // GET /readyz (ready.go)

	mu      sync.Mutex // guards conns and closing
	conns   map[*wsConn]struct{}
	closing bool
	wg      sync.WaitGroup // one per connection being served
}

// NewServer returns a server; Close stops it. Steps run under a context
// that keeps ctx's values but not its cancellation: they end when Close
// gives up waiting, not when ctx is cancelled.
func NewServer(ctx context.Context, cfg ServerConfig) *Server {
	cfg.setDefaults()
	s := &Server{cfg: cfg, conns: map[*wsConn]struct{}{}, reading: newReadBudget(cfg.MaxReadingBytes), workers: newWorkers(workerIdle),
		rooms: fairshare.New(cfg.MaxConnections, true)}
	s.base, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.metrics = newMetrics(cfg.Registry)
	s.guard = newGuard(&s.cfg)
	s.ready = newReadiness(cfg.Ready, cfg.Registry)
	countReading(cfg.Registry, s.reading.inUse)
	s.upgrader = websocket.Upgrader{
		// A write buffer is taken from the pool only while a reply is
		// being written, so an idle socket holds none. The read buffer,
		// which every socket keeps, is sized to a typical request: larger
		// payloads are read past it, straight into the frame's buffer.
		ReadBufferSize:  readBufferSize,
		WriteBufferSize: writeChunk, WriteBufferPool: &sync.Pool{},
		CheckOrigin:  func(*http.Request) bool { return true }, // the token, or without one the guard, has checked it
		Subprotocols: []string{subprotocol},                    // selected when offered: a browser that sends the token as one needs a reply
	}
	return s
}

// Handler returns the server's HTTP routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/ws", s.guarded(s.authorized(s.handleWS)))
	mux.HandleFunc("POST /v1/rpc", s.guarded(s.authorized(jsonOnly(s.handleRPC))))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /livez", serveLive)
	mux.HandleFunc("GET /readyz", s.ready.serveReady)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.cfg.Registry, promhttp.HandlerOpts{}))
	for _, m := range s.cfg.Mounts {
		h := s.guarded(s.authorized(s.counted(m.Handler)))
		if m.OwnLogin {
			h = s.guarded(s.counted(m.Handler))
		}
		mux.HandleFunc(m.Prefix, h)
		mux.HandleFunc(m.Prefix+"/", h)
	}
	return mux
}

// counted holds a room in MaxConnections while h serves a request.
func (s *Server) counted(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.base.Err() != nil {
			refuse(w, http.StatusServiceUnavailable, "server shutting down")
			return
		}
		room, ok := s.admitConn(w, r)
		if !ok {
			return
		}
		defer room.Release()
		h.ServeHTTP(w, r)
	}
}

// refuse answers a request the server does not serve, and has its
// connection closed after the reply: a body the client may still be
// sending is not waited for (the read deadline passes at once, so one
// that never comes holds nothing), and a refused client keeps no idle
// connection.
func refuse(w http.ResponseWriter, code int, msg string) {
	http.NewResponseController(w).SetReadDeadline(time.Now())
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
}

func (s *Server) handleWS(w http.ResponseWriter, r *http.Request) {
	if s.base.Err() != nil {
		refuse(w, http.StatusServiceUnavailable, "server shutting down")
		return
	}
	room, ok := s.admitConn(w, r)
	if !ok {
		return
	}
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		room.Release()
		return // the upgrader has answered the client
	}
	s.serveConn(ws, room) // holds the room in MaxConnections until the socket closes
}

// admitConn takes a room of MaxConnections for r's client (its
// address), reclaiming an idle socket of the client holding the most when
// the bound is reached and r's client holds less than its share; or
// answers 503 saying why. The caller releases the room.
func (s *Server) admitConn(w http.ResponseWriter, r *http.Request) (*fairshare.Ticket, bool) {
	room, err := s.rooms.Acquire(fairshare.ClientOfAddr(r.RemoteAddr))
	if err != nil {
		s.metrics.refusedConns.Inc()
		w.Header().Set("Retry-After", "1")
		refuse(w, http.StatusServiceUnavailable, fmt.Sprintf(
			"too many connections: the server serves at most %d WebSockets and HTTP requests at once (its --max-connections): %v",
			s.cfg.MaxConnections, err))
		return nil, false
	}
	return room, true
}

func (s *Server) handleRPC(w http.ResponseWriter, r *http.Request) {
	room, ok := s.admitConn(w, r)
	if !ok {
		return
	}
	defer room.Release()
	body, held, err := s.readBody(w, r)
	if err != nil {
		return
	}
	job := s.cfg.Dispatcher.Prepare(body)
	s.reading.release(held)
	reply := job.Run(fairshare.WithClient(s.base, fairshare.ClientOfAddr(r.RemoteAddr)))
	if reply == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.writeReply(w, reply)
	jsonrpc.ReleaseFrame(reply)
}

// writeReply writes an HTTP reply in chunks, each within PongWait: a
// client that takes in nothing for that long (one gone without a FIN)
// has its connection closed instead of holding it with a write that
// never ends.
func (s *Server) writeReply(w http.ResponseWriter, reply []byte) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
	for off := 0; off < len(reply); off += writeChunk {
		rc.SetWriteDeadline(time.Now().Add(s.cfg.PongWait))
		if _, err := w.Write(reply[off:min(off+writeChunk, len(reply))]); err != nil {
			return
		}
	}
}

// readBody reads a request body within MaxFrameBytes, PongWait and the
// reading budget, or answers the client with what was wrong.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int64, error) {
	deadline := time.Now().Add(s.cfg.PongWait)
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(deadline)
	body, held, err := s.reading.read(r.Context(), http.MaxBytesReader(w, r.Body, s.cfg.MaxFrameBytes), s.cfg.MaxFrameBytes,
		2*s.cfg.PongWait, func(waited time.Duration) {
			deadline = deadline.Add(waited)
			rc.SetReadDeadline(deadline)
		})
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		http.Error(w, fmt.Sprintf("request body too large: at most %d bytes (the server's --max-frame-bytes)", s.cfg.MaxFrameBytes),
			http.StatusRequestEntityTooLarge)
	case err != nil:
		http.Error(w, fmt.Sprintf("request body not received within %s: %v", s.cfg.PongWait, err), http.StatusRequestTimeout)
	}
	return body, held, err
}

// track adds a connection to the set Close shuts down; false once the
// server is closing.
func (s *Server) track(c *wsConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

// untrack removes a connection that has ended.
func (s *Server) untrack(c *wsConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	s.wg.Done()
}

// Close shuts every WebSocket down with a close frame and waits, until ctx
// is done, for their connections to end. http.Server.Shutdown does not
// close hijacked connections: call it first, then Close.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for c := range s.conns {
		c.shutdown()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		s.cancel()
		s.workers.stop()
		return nil
	case <-ctx.Done():
		s.cancel() // running steps stop; their connections then end
		<-done
		s.workers.stop()
		return ctx.Err()
	}
}

// Listener wraps ln as Serve does: at most MaxTCPConnections of its
// connections are open at once (past it a new one is closed as soon as it
// is accepted), and each is corked (WrapListener).
func (s *Server) Listener(ln net.Listener) net.Listener {
	return WrapListener(limit(ln, s.cfg.MaxTCPConnections, s.metrics, s.cfg.Logger))
}

// httpServer returns the HTTP server Serve runs: Handler's routes, a
// request's headers read within HeaderTimeout and the whole request
// within PongWait (the RPC body's own reading may wait longer for the
// reading budget), and a keep-alive connection closed once it has waited
// IdleConnTimeout for its next request.
func (s *Server) httpServer() *http.Server {
	return &http.Server{Handler: s.Handler(), ReadHeaderTimeout: s.cfg.HeaderTimeout, ReadTimeout: s.cfg.PongWait,
		IdleTimeout: s.cfg.IdleConnTimeout}
}

// Serve serves on ln until ctx is done, then shuts down gracefully within
// grace: the listener closes, sockets get a close frame, steps finish.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	return s.ServeGrace(ctx, ln, func() time.Duration { return grace })
}

// ServeGrace is Serve with the grace asked for when ctx ends: a server
// that drained before it stops gives running steps what is left of its
// grace.
func (s *Server) ServeGrace(ctx context.Context, ln net.Listener, grace func() time.Duration) error {
	hs := s.httpServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(s.Listener(ln)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace())
	defer cancel()
	err := hs.Shutdown(sctx)
	err = errors.Join(err, s.Close(sctx))
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
