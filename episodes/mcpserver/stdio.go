package mcpserver

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RunStdio serves one MCP session over in and out (newline-delimited
// JSON-RPC, the stdio transport) until the client closes in or ctx ends.
// When the client closed it, the session's episode is closed if it is
// still live (no_submit); when ctx ended, it is left to the Manager's
// shutdown (abandoned).
func (s *Server) RunStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	ss, err := s.mcp.Connect(ctx, &mcp.IOTransport{Reader: in, Writer: out}, nil)
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
