package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/base/corkconn"
)

// Stream is a connection for a caller that keeps many requests in flight
// and matches the replies to them itself, as a load generator does: it
// sends frames it encoded, several in one write(2), and reads the reply
// frames as they come, with no goroutine or channel per call. Client is
// the connection for everyone else.
//
// One goroutine may Read while others Write; Writes are serialized.
type Stream struct {
	ws   *websocket.Conn
	conn *corkconn.Conn
	wmu  sync.Mutex // serializes writes: gorilla allows one writer at a time
	buf  []byte     // the last frame read, reused by the next Read
}

// maxKeptRead is the largest read buffer a Stream keeps for the next
// Read.
const maxKeptRead = 64 << 10

// writeTimeout bounds one Write: a server that stops reading fails it.
const writeTimeout = 10 * time.Second

// DialStream connects to url (ws://host:port/v1/ws), with a bearer token
// when token is not empty.
func DialStream(ctx context.Context, url, token string) (*Stream, error) {
	ws, bc, err := dial(ctx, url, token)
	if err != nil {
		return nil, err
	}
	return &Stream{ws: ws, conn: bc}, nil
}

// Write sends frames, each a text message, in one system call.
func (s *Stream) Write(frames ...[]byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.conn.Cork()
	s.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	var err error
	for _, f := range frames {
		if err = s.ws.WriteMessage(websocket.TextMessage, f); err != nil {
			break
		}
	}
	if ferr := s.conn.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// Read returns the next frame the server sent. It is valid until the
// next Read: frames are read into one buffer, grown as they need.
func (s *Stream) Read() ([]byte, error) {
	_, r, err := s.ws.NextReader()
	if err != nil {
		return nil, err
	}
	b := s.buf[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if cap(b) <= maxKeptRead {
		s.buf = b
	}
	return b, nil
}

// Close starts the close handshake: the goroutine reading gets an error
// from Read once the server answers, or after a second, and should then
// call Abort to release the socket.
func (s *Stream) Close() error {
	s.wmu.Lock()
	err := s.ws.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	s.wmu.Unlock()
	s.ws.SetReadDeadline(time.Now().Add(time.Second))
	if errors.Is(err, websocket.ErrCloseSent) {
		err = nil
	}
	return err
}

// Abort ends the connection at once, without a close handshake; a
// pending Read returns an error.
func (s *Stream) Abort() error { return s.ws.Close() }
