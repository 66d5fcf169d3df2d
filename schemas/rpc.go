package schemas

import (
	"encoding/json"
	"fmt"
)

// Protocol is the protocol name reported by server.info.
const Protocol = "sqlgym/1"

// JSON-RPC 2.0 error codes, and the sqlgym codes of protocol sqlgym/1.
const (
	CodeParseError      = -32700 // the frame is not JSON
	CodeInvalidRequest  = -32600 // not a JSON-RPC 2.0 request
	CodeMethodNotFound  = -32601 // no such method
	CodeInvalidParams   = -32602 // unknown fields, wrong types, out-of-range values
	CodeInternal        = -32603 // a fault of the server
	CodeEpisodeNotFound = -32001 // no live episode has that id (or it expired)
	CodeEpisodeEnded    = -32002 // the episode has already ended
	CodeCapacity        = -32003 // max live episodes reached, or overloaded
	CodeTaskNotFound    = -32004 // no such dataset or task
	CodeEpisodeBusy     = -32005 // a step of the episode is still running
	CodeDraining        = -32006 // the server is shutting down: no new episodes (extension)
	CodeElsewhere       = -32007 // another replica drives the episode: send again through the load balancer (extension)
)

// Request is one JSON-RPC 2.0 request. A request without an id is a
// notification: it runs and gets no reply.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// IsNotification reports whether the request carries no id.
func (r *Request) IsNotification() bool { return len(r.ID) == 0 }

// Response is one JSON-RPC 2.0 response: exactly one of Result and Error
// is set.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object. It is also a Go error, so handlers
// return it and the dispatcher sends it as it is.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error formats the code and message.
func (e *Error) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// Errorf builds an *Error with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NullID is the id of a reply to a request whose id could not be read.
var NullID = json.RawMessage("null")
