package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// defaultLineBytes bounds one stdio line when Config.MaxBodyBytes is 0,
// as the SDK bounds an HTTP body.
const defaultLineBytes = 4 << 20

// JSON-RPC 2.0's error codes for what the gate refuses.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// lockedWriter is the stdio output shared by the SDK's replies and the
// gate's: each Write is one whole line, never interleaved with another.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close is the SDK's end of the connection; the process's stdout stays
// open for the gate's last reply.
func (l *lockedWriter) Close() error { return nil }

// gate reads newline-delimited JSON-RPC from in and passes on, to the
// SDK, each line that is one well-formed JSON-RPC 2.0 message. Any other
// line (not JSON, a NUL byte, nesting past encoding/json's depth, a
// batch, `{}`, an id that is neither a string nor a number, a line over
// max bytes) is answered on out with a JSON-RPC error saying what was
// wrong, and the session goes on, as it does over HTTP (/mcp), where
// the SDK answers such a body with 400 and the session stays. The SDK
// alone would end the session, and sqlgym mcp with it, at the first.
type gate struct {
	in  *bufio.Reader
	out io.Writer
	max int
}

// run passes in's lines to to until in ends or to is closed; it closes
// to when in ends, so the SDK sees the client's EOF.
func (g *gate) run(to *io.PipeWriter) {
	for {
		line, err := g.line()
		if len(line) > 0 {
			if msg, why := check(line); why != nil {
				g.reply(why)
			} else if _, werr := to.Write(append(msg, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			to.CloseWithError(ignoreEOF(err))
			return
		}
	}
}

// line is the next line of in without its end, trimmed of blanks; a
// line over g.max bytes is read to its end and returned as errTooLong's
// reply in place of its bytes.
func (g *gate) line() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := g.in.ReadSlice('\n')
		if len(buf)+len(chunk) > g.max {
			buf = nil
			g.discardRest(chunk, err)
			g.reply(&rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("line over %d bytes (--max-frame-bytes); nothing of it was read", g.max)})
			if errors.Is(err, bufio.ErrBufferFull) {
				err = nil
			}
			return nil, err
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSpace(buf), err
		}
	}
}

// discardRest reads in to the end of the line chunk began.
func (g *gate) discardRest(chunk []byte, err error) {
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = g.in.ReadSlice('\n')
	}
	_ = chunk
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// reply writes the error reply to a line the gate refused: its id is
// null, as JSON-RPC 2.0 has it when the request's id cannot be read.
func (g *gate) reply(e *rpcError) {
	b, _ := json.Marshal(struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      *struct{} `json:"id"`
		Error   *rpcError `json:"error"`
	}{JSONRPC: "2.0", Error: e})
	g.out.Write(append(b, '\n'))
}

// ignoreEOF is nil for io.EOF: the client closed its end.
func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
