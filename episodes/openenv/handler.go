package openenv

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sqlgym/sqlgym/episodes"
)

// Defaults of Config.
const (
	// DefaultMaxSessions bounds the OpenEnv sessions at once: WebSockets
	// and the episodes HTTP clients started (--max-openenv-sessions).
	DefaultMaxSessions  = 1024
	defaultMaxFrame     = 4 << 20
	defaultPingInterval = 30 * time.Second
	defaultWriteTimeout = 10 * time.Second
)

// Config is what a Handler serves and its bounds.
type Config struct {
	Manager *episodes.Manager // runs and records the episodes
	Prefix  string            // the path the handler is mounted at ("/openenv"); routes are below it
	// MaxFrameBytes bounds a WebSocket message and an HTTP body: the
	// server's --max-frame-bytes (4 MiB when 0).
	MaxFrameBytes int64
	// MaxSessions bounds the WebSockets and the HTTP clients' live
	// episodes at once (DefaultMaxSessions when 0), shared among clients
	// (remote addresses) by base/fairshare: a client below its share
	// at the bound is served by reclaiming the largest holder's least
	// recently used idle session; one at or above it gets
	// CAPACITY_REACHED (a WebSocket is then closed, a reset HTTP 503).
	MaxSessions int
	// IdleTimeout is the Manager's --idle-timeout: an HTTP client's
	// episode unused this long has been abandoned and leaves the count
	// of sessions (episodes.DefaultIdleTimeout when 0).
	IdleTimeout  time.Duration
	PingInterval time.Duration    // how often a WebSocket is pinged (30s)
	PongWait     time.Duration    // how long a WebSocket may stay silent (2 x PingInterval)
	WriteTimeout time.Duration    // bound on one frame's write (10s)
	Now          func() time.Time // the clock (time.Now); tests give a fake one
	// Registry, when set, gets the surface's metrics (the Manager's
	// registry, served on /metrics).
	Registry prometheus.Registerer
}

func (c *Config) setDefaults() {
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = defaultMaxFrame
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = episodes.DefaultIdleTimeout
	}
	if c.PingInterval <= 0 {
		c.PingInterval = defaultPingInterval
	}
	if c.PongWait <= 0 {
		c.PongWait = 2 * c.PingInterval
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = defaultWriteTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Handler serves OpenEnv's routes under its prefix.
type Handler struct {
	cfg      Config
	base     context.Context // ends at shutdown: every WebSocket then closes
	engine   engine
	sessions *registry
	upgrader websocket.Upgrader
	refused  prometheus.Counter // sessions refused at the bound
}

// New is a Handler over cfg.Manager. When ctx ends, its WebSockets close
// (their episodes are closed, and so recorded).
func New(ctx context.Context, cfg Config) *Handler {
	cfg.setDefaults()
	h := &Handler{
		cfg: cfg, base: ctx, engine: engine{cfg.Manager},
		upgrader: websocket.Upgrader{
			// The mount's guard (the token, or without one the Host and
			// Origin checks) has run before this handler.
			CheckOrigin: func(*http.Request) bool { return true },
		},
		refused: newRefused(),
	}
	h.sessions = newRegistry(cfg.MaxSessions, cfg.IdleTimeout, cfg.Now, h.engine.abandonIdle)
	if cfg.Registry != nil {
		h.register(cfg.Registry)
	}
	return h
}

// ServeHTTP routes a request by its path below the prefix, where
// /tasks/{task_id} may stand before the route (splitRoute).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, h.cfg.Prefix)
	task, route := splitRoute(path)
	method, ok := routes[route]
	switch {
	case route == "/mcp" && r.Method == http.MethodGet:
		h.serveWS(w, r, task, true) // OpenEnv's WebSocket /mcp
	case !ok:
		writeJSON(w, http.StatusNotFound, detail{Detail: "Not Found: " + path})
	case r.Method != method:
		w.Header().Set("Allow", method)
		writeJSON(w, http.StatusMethodNotAllowed, detail{Detail: "Method Not Allowed: " + route + " takes " + method})
	default:
		h.serveRoute(w, r, task, route)
	}
}

// routes are the paths below the prefix and their methods (/mcp also
// takes GET: its WebSocket).
var routes = map[string]string{
	"/ws": http.MethodGet, "/reset": http.MethodPost, "/step": http.MethodPost, "/state": http.MethodGet,
	"/schema": http.MethodGet, "/metadata": http.MethodGet, "/health": http.MethodGet, "/mcp": http.MethodPost,
}

// serveRoute serves a route; task is the task the URL names ("" for
// none), which the routes that start episodes play.
func (h *Handler) serveRoute(w http.ResponseWriter, r *http.Request, task, route string) {
	switch route {
	case "/ws":
		h.serveWS(w, r, task, false)
	case "/reset":
		h.serveReset(w, r, task)
	case "/step":
		h.serveStep(w, r)
	case "/state":
		h.serveState(w, r)
	case "/schema":
		writeRaw(w, http.StatusOK, schemaJSON())
	case "/metadata":
		writeJSON(w, http.StatusOK, h.metadata())
	case "/health":
		writeJSON(w, http.StatusOK, map[string]string{"status": "healthy"})
	case "/mcp":
		h.serveMCP(w, r, task)
	}
}

// ActiveSessions is the count of OpenEnv sessions held: WebSockets and
// HTTP clients' live episodes.
func (h *Handler) ActiveSessions() int { return h.sessions.active() }
