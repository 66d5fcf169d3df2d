package openenv

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/base/fairshare"
	"github.com/sqlgym/sqlgym/schemas"
)

// wsSession is one WebSocket and the episode it plays (nil before the
// first reset). Only its reader, which handles one message at a time as
// OpenEnv's server does, touches the episode.
type wsSession struct {
	h       *Handler
	conn    *websocket.Conn
	ctx     context.Context // what its calls run under: the server's, naming the socket's client
	ticket  *fairshare.Ticket
	ep      *episode
	task    string // the task the URL names, which its resets play ("" for none)
	rpcOnly bool   // GET /mcp: frames are JSON-RPC requests

	// mu guards what a reclaim (another client's reset, reclaim.go)
	// reads and sets: a message in hand, the last use, the reclaim.
	mu        sync.Mutex
	busy      bool
	last      time.Time
	reclaimed bool
}

// serveWS upgrades the request and serves the socket until the client
// closes it, sends close, stops answering pings, or the server shuts
// down. Past the session bound it answers CAPACITY_REACHED and closes, as
// OpenEnv's server does after accepting. With rpcOnly (GET /mcp) each
// frame is a JSON-RPC request instead of a typed message. task is the
// task the URL names ("" for none).
func (h *Handler) serveWS(w http.ResponseWriter, r *http.Request, task string, rpcOnly bool) {
	conn, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	defer conn.Close()
	client := fairshare.ClientOfAddr(r.RemoteAddr)
	s := &wsSession{h: h, conn: conn, task: task, rpcOnly: rpcOnly, last: h.cfg.Now(),
		ctx: fairshare.WithClient(context.WithoutCancel(h.base), client)}
	t, err := h.sessions.reserve(client)
	if err != nil {
		s.refuse(err)
		return
	}
	s.ticket = t
	defer t.Release()
	t.Hold(s)
	stop := context.AfterFunc(h.base, func() { s.closeFrame(websocket.CloseGoingAway, "server shutting down"); conn.Close() })
	defer stop()
	pinged := s.keepAlive()
	defer pinged()
	s.loop()
	if s.begin() { // not reclaimed: a reclaim has closed its episode
		s.endEpisode()
	}
}

// refuse answers a socket past the session bound, with the counts and
// the refusal's reason, and closes it (1013).
func (s *wsSession) refuse(refusal error) {
	s.h.refused.Inc()
	active, max := s.h.sessions.active(), s.h.cfg.MaxSessions
	msg := s.h.overBound(refusal)
	if s.rpcOnly {
		r := rpcFail(nil, rpcServerError, msg)
		r.Error.Data = map[string]int{"active_sessions": active, "max_sessions": max}
		s.send(r)
	} else {
		s.send(outMessage{Type: typeError, Data: errorData{Code: CodeCapacityReached, ActiveSessions: &active, MaxSessions: &max, Message: msg}})
	}
	s.closeFrame(websocket.CloseTryAgainLater, "capacity reached")
}

// keepAlive bounds the socket's silence: a ping every PingInterval, and
// the read deadline moved on by each pong and message. It returns the
// function that stops the pings.
func (s *wsSession) keepAlive() func() {
	cfg := &s.h.cfg
	s.conn.SetReadLimit(cfg.MaxFrameBytes)
	s.conn.SetReadDeadline(time.Now().Add(cfg.PongWait))
	s.conn.SetPongHandler(func(string) error { return s.conn.SetReadDeadline(time.Now().Add(cfg.PongWait)) })
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(cfg.PingInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if s.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(cfg.WriteTimeout)) != nil {
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

// loop reads and answers messages until the socket ends, close comes,
// or the session is reclaimed.
func (s *wsSession) loop() {
	for {
		kind, frame, err := s.conn.ReadMessage()
		if err != nil || !s.begin() {
			return
		}
		more := s.handle(kind, frame)
		s.idle()
		if !more {
			return
		}
	}
}

// handle answers one message; false when the socket is to end.
func (s *wsSession) handle(kind int, frame []byte) bool {
	s.conn.SetReadDeadline(time.Now().Add(s.h.cfg.PongWait))
	if kind != websocket.TextMessage {
		s.fail(&failure{Code: CodeInvalidJSON, Message: "binary frame: messages are JSON text frames"})
		return true
	}
	if s.rpcOnly {
		return s.send(s.answerRPC(frame)) == nil
	}
	var m inMessage
	if err := json.Unmarshal(frame, &m); err != nil {
		s.fail(&failure{Code: CodeInvalidJSON, Message: "Invalid JSON: " + err.Error()})
		return true
	}
	if m.Type == typeClose {
		s.closeFrame(websocket.CloseNormalClosure, "")
		return false
	}
	return s.send(s.answer(m)) == nil
}

// answer is the reply to one message.
func (s *wsSession) answer(m inMessage) outMessage {
	ctx := s.ctx
	switch m.Type {
	case typeReset:
		res, err := s.restart(ctx, m.Data)
		if err != nil {
			return errorMessage(err)
		}
		return outMessage{Type: typeObservation, Data: res}
	case typeStep:
		res, err := s.h.act(ctx, s.ep, m.Data)
		if err != nil {
			return errorMessage(err)
		}
		return outMessage{Type: typeObservation, Data: res}
	case typeState:
		if s.ep == nil {
			return outMessage{Type: typeState, Data: State{}}
		}
		return outMessage{Type: typeState, Data: s.ep.state()}
	case typeMCP:
		return outMessage{Type: typeMCP, Data: s.h.mcpOnSocket(ctx, s.ep, m.Data)}
	}
	return errorMessage(&failure{Code: CodeUnknownType, Message: fmt.Sprintf("Unknown message type: %q (reset, step, state, close or mcp)", m.Type)})
}

// restart starts the session's next episode, and only then closes the
// one it replaces (recorded as no_submit if it had not ended): a refused
// reset, a malformed one or one naming no task the server has, leaves the
// session's episode as it was. At the Manager's bounds (--max-episodes,
// --max-live-bytes) the running episode's place goes to the next one: it
// is closed, and the reset tried once more.
func (s *wsSession) restart(ctx context.Context, data json.RawMessage) (Result, error) {
	ep, res, err := s.h.start(ctx, data, s.task)
	if err != nil && s.live() && failureOf(err).Code == CodeCapacityReached {
		s.endEpisode()
		ep, res, err = s.h.start(ctx, data, s.task)
	}
	if err != nil {
		return Result{}, err
	}
	s.endEpisode()
	s.ep = ep
	return res, nil
}

// live reports whether the session plays an episode that has not ended.
func (s *wsSession) live() bool { return s.ep != nil && !s.ep.ended() }

// endEpisode closes the session's episode if it has not ended: a reset
// replaces it, and a session that ends takes it along (recorded as
// no_submit, as an episode.close would).
func (s *wsSession) endEpisode() {
	if s.ep == nil || s.ep.ended() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.h.base), s.h.cfg.WriteTimeout)
	defer cancel()
	s.h.engine.close(ctx, s.ep.id) // an episode the Manager expired meanwhile is no longer live: nothing to close
	s.ep = nil
}

// errorMessage is the error message of err.
func errorMessage(err error) outMessage {
	f := failureOf(err)
	return outMessage{Type: typeError, Data: errorData{Message: f.Message, Code: f.Code}}
}

// answerRPC is the reply to a JSON-RPC request on GET /mcp. The socket's
// episode is started by openenv/session/create, whose params (less
// session_id) are a reset's data; while it runs, session/create answers
// its id again, as OpenEnv answers a socket's own session.
func (s *wsSession) answerRPC(frame []byte) *rpcResponse {
	req, _, bad := parseRPC(frame)
	if bad != nil {
		return bad
	}
	if req.Method != methodSessionCreate || s.live() {
		return s.h.mcpOnSocket(s.ctx, s.ep, frame)
	}
	res, err := s.restart(s.ctx, resetOfParams(req.Params))
	if err != nil {
		return rpcFail(req.ID, rpcCodeOf(err), err.Error())
	}
	return rpcOK(req.ID, sessionCreated(s.ep, res))
}

// fail sends an error message (a JSON-RPC parse error on GET /mcp).
func (s *wsSession) fail(f *failure) {
	if s.rpcOnly {
		s.send(rpcFail(nil, schemas.CodeParseError, f.Message))
		return
	}
	s.send(errorMessage(f))
}

// send writes one message within the write timeout.
func (s *wsSession) send(m any) error {
	b, err := schemas.Marshal(m)
	if err != nil {
		b, _ = schemas.Marshal(errorMessage(err))
	}
	s.conn.SetWriteDeadline(time.Now().Add(s.h.cfg.WriteTimeout))
	return s.conn.WriteMessage(websocket.TextMessage, b)
}

// closeFrame sends a close frame (best effort: the socket may be gone).
func (s *wsSession) closeFrame(code int, text string) {
	s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(s.h.cfg.WriteTimeout))
}
