package mcpserver

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RunStdio serves one MCP session over in and out (newline-delimited
// JSON-RPC, the stdio transport) until the client closes in or ctx ends;
// then it closes the session's episode if it is still live.
func (s *Server) RunStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	ss, err := s.mcp.Connect(ctx, &mcp.IOTransport{Reader: in, Writer: out}, nil)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { ss.Close() })
	defer stop()
	err = ss.Wait()
	s.endSession(ss)
	if ctx.Err() != nil {
		return nil
	}
	return err
}
