package mcpserver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes"
)

// Defaults of the bounds on what MCP clients can make the server hold.
const (
	// DefaultMaxSessions is how many MCP sessions may be open at once
	// over HTTP (--max-mcp-sessions); a new one past it gets HTTP 503.
	DefaultMaxSessions = 1024
	// DefaultSessionIdle is how long an HTTP session may go without a
	// request before it is closed (--mcp-session-idle), and how long an
	// episode no session holds may go without a call before it is
	// closed: the episode's own --idle-timeout default.
	DefaultSessionIdle = episodes.DefaultIdleTimeout
)

// Config configures a Server. Zero values mean the defaults.
type Config struct {
	Manager *episodes.Manager // the episodes served; required
	Version string            // the server's, in the MCP handshake
	// MaxSessions bounds the HTTP sessions open at once
	// (DefaultMaxSessions).
	MaxSessions int
	// SessionIdle is how long an HTTP session may stay without a request
	// before it is closed, and an episode no session holds without a
	// call before it is closed (DefaultSessionIdle).
	SessionIdle time.Duration
	// MaxBodyBytes bounds one HTTP request's body (the server's
	// --max-frame-bytes; 0: the SDK's 4 MiB).
	MaxBodyBytes int64
	Registry     *prometheus.Registry // the metrics join it; nil: a registry of their own
	Logger       *zap.Logger          // nil logs nothing
}

func (c *Config) setDefaults() {
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.SessionIdle <= 0 {
		c.SessionIdle = DefaultSessionIdle
	}
	if c.Registry == nil {
		c.Registry = prometheus.NewRegistry()
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
}

// instructions tell an agent how the tools go together.
const instructions = "sqlgym poses text-to-SQL tasks as episodes. list_tasks shows the tasks; start_episode starts one " +
	"(a task by task_id, or one drawn from a dataset) and returns its question. Then use the episode's tools " +
	"(inspect_schema, execute_sql, and search_values and describe_column where offered) to explore the database, " +
	"and submit one SQL query as the answer, which ends the episode. Every call costs one turn of the episode's budget. " +
	"get_reward reads the episode's reward; end_episode gives up on it. A session plays one episode at a time; " +
	"a client that opens a session per call names the episode with episode_id (start_episode returns it)."

// Server is sqlgym's MCP server: one mcp.Server whose sessions each hold
// one episode.
type Server struct {
	cfg      Config
	api      episodeAPI
	mcp      *mcp.Server
	args     map[string]argSchema // the session tools' input schemas, by tool; read-only after New
	sessions sessionTable
	owners   owners // the episodes started here, their principals and expiry
	metrics  *metrics
	watchers sync.WaitGroup // one per open HTTP session: ends it when it closes
	closing  atomic.Bool    // Close has begun: sessions end, their episodes stay for the Manager's shutdown
}

// New returns a server over cfg.Manager's episodes.
func New(cfg Config) *Server {
	cfg.setDefaults()
	s := &Server{cfg: cfg, api: episodeAPI{cfg.Manager}, args: map[string]argSchema{}, metrics: newMetrics(cfg.Registry)}
	s.sessions.init(cfg.MaxSessions)
	s.owners.init(cfg.SessionIdle, s.expired)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "sqlgym", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions,
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}})
	s.addTools()
	return s
}

// endSession forgets an ended session. Its episode, when it has one,
// is no longer held by it: over HTTP the episode then stays for calls
// that name it, until SessionIdle passes without one (a client that
// opens a session per call is between calls); over stdio (atOnce) no
// other session can come, and a live one is closed at once, recorded as
// no_submit as episode.close records it. A session ended by the
// server's shutdown leaves its episode to the Manager's, which records
// it as abandoned, as it records native episodes.
func (s *Server) endSession(ss *mcp.ServerSession, atOnce bool) {
	id := s.sessions.forget(ss)
	if id == "" || s.closing.Load() {
		return
	}
	if atOnce {
		s.expired(id)
	}
	s.owners.unhold(id)
}

// expired closes an episode that is no longer played (no_submit, when
// it is still live).
func (s *Server) expired(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if _, err := s.api.close(ctx, id); err != nil {
		s.cfg.Logger.Debug("mcp episode closed; it was not live", zap.String("episode", id), zap.Error(err))
	}
}

// closeTimeout bounds the close of a session's episode: it waits for the
// episode's running step.
const closeTimeout = time.Minute
