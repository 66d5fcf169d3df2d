package mcpserver

import (
	"bufio"
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RunStdio serves one MCP session over in and out (newline-delimited
// JSON-RPC, the stdio transport) until the client closes in or ctx ends.
// When the client closed it, the session's episode is closed if it is
// still live (no_submit); when ctx ended, it is left to the Manager's
// shutdown (abandoned).
//
// A line that is no JSON-RPC 2.0 message, or is over Config.MaxBodyBytes,
// is answered with a JSON-RPC error and the session goes on (gate).
func (s *Server) RunStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	defer pr.Close()
	g := &gate{in: bufio.NewReaderSize(in, 64<<10), out: w, max: s.lineBytes()}
	go g.run(pw)
	ss, err := s.mcp.Connect(ctx, &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: -1}, nil)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { ss.Close() })
	defer stop()
	err = ss.Wait()
	if ctx.Err() != nil {
		s.closing.Store(true)
		err = nil
	}
	s.endSession(ss, true)
	s.owners.stop()
	return err
}

// lineBytes bounds one stdio line: Config.MaxBodyBytes, as over HTTP.
func (s *Server) lineBytes() int {
	if s.cfg.MaxBodyBytes > 0 {
		return int(s.cfg.MaxBodyBytes)
	}
	return defaultLineBytes
}
