package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/episodes/transport"
)

// mcpFlags are serve's bounds on MCP sessions over HTTP (/mcp).
type mcpFlags struct {
	maxSessions int
	sessionIdle time.Duration
}

func (m *mcpFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&m.maxSessions, "max-mcp-sessions", mcpserver.DefaultMaxSessions,
		"MCP sessions open at once over HTTP (/mcp), each holding one episode, shared fairly among clients (addresses); "+
			"a new one past its client's share gets HTTP 503")
	fs.DurationVar(&m.sessionIdle, "mcp-session-idle", mcpserver.DefaultSessionIdle,
		"how long an MCP session may go without a request before it is closed, its episode with it (recorded as no_submit)")
}

func (m *mcpFlags) check() error {
	if m.maxSessions < 1 || m.sessionIdle <= 0 {
		return usageError{fmt.Sprintf("--max-mcp-sessions must be >= 1 and --mcp-session-idle > 0, got %d and %s", m.maxSessions, m.sessionIdle)}
	}
	return nil
}

// server is the MCP server over mgr's episodes, with these bounds.
func (m *mcpFlags) server(mgr *episodes.Manager, frameBytes int64, log *zap.Logger) *mcpserver.Server {
	return mcpserver.New(mcpserver.Config{Manager: mgr, Version: version, MaxSessions: m.maxSessions, SessionIdle: m.sessionIdle,
		MaxBodyBytes: frameBytes, Registry: mgr.Metrics().Registry, Logger: log})
}

// mcpCmdFlags are the flags of sqlgym mcp.
type mcpCmdFlags struct {
	stack     stackFlags
	server    serverOpts
	logFormat string
	logLevel  string
}

// runMCP is sqlgym mcp: one MCP session over stdin and stdout, on the
// stack serve would build from the same flags, recording to the same
// trajectory store. Logs go to stderr.
func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return mcpMain(ctx, args, os.Stdin, stdout, stderr)
}

func mcpMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("mcp", stderr)
	var f mcpCmdFlags
	f.stack.register(fs)
	lazyValueIndex(fs, &f.stack)
	fs.IntVar(&f.server.maxEpisodes, "max-episodes", episodes.DefaultMaxEpisodes, "live episodes at once")
	fs.DurationVar(&f.server.idleTimeout, "idle-timeout", episodes.DefaultIdleTimeout, "idle time after which an episode is abandoned")
	fs.StringVar(&f.logFormat, "log-format", "console", "log format (to stderr): json or console")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level (to stderr): debug, info, warn or error")
	bytesVar(fs, &f.server.frameBytes, "max-frame-bytes", transport.DefaultMaxFrameBytes, "longest line (one JSON-RPC message) read from stdin; a longer one is answered with an error and skipped")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.server.frameBytes < 1 {
		return usageError{"--max-frame-bytes must be >= 1"}
	}
	if f.server.maxEpisodes < 1 || f.server.idleTimeout <= 0 {
		return usageError{"--max-episodes must be >= 1 and --idle-timeout > 0"}
	}
	log, err := newLogger(f.logFormat, f.logLevel, stderr)
	if err != nil {
		return err
	}
	defer log.Sync()
	st, err := f.stack.build(ctx, log)
	if err != nil {
		return err
	}
	defer st.close(log)
	mgr, err := newManager(st, &f.stack, f.server, log, nil)
	if err != nil {
		return err
	}
	expiry, stopExpiry := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { defer close(done); mgr.Run(expiry) }()
	srv := mcpserver.New(mcpserver.Config{Manager: mgr, Version: version, Logger: log, MaxBodyBytes: f.server.frameBytes})
	err = srv.RunStdio(ctx, io.NopCloser(stdin), nopWriteCloser{stdout})
	stopExpiry()
	<-done
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	mgr.Shutdown(sctx)
	return err
}

// lazyValueIndex makes --value-index-build lazy by default for sqlgym
// mcp. Its process lives as long as its one client, often one call (the
// Inspector CLI starts one per call): builds started at startup would
// mostly be cut off at exit, logged as failures, and begun again by the
// next process, never done. Built at a database's first search_values,
// an index is done within that call and kept under --data-dir for every
// later process.
func lazyValueIndex(fs *flag.FlagSet, s *stackFlags) {
	s.tools.index.build = "lazy"
	fs.Lookup("value-index-build").DefValue = "lazy"
}

// nopWriteCloser is a writer whose Close does nothing: stdout stays open
// for the process's other writes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
