// Package rpc is the transport of protocol sqlgym/1: the JSON-RPC
// Dispatcher (strict params decoding, the methods' handlers, batches and
// their reply budget) and the Server that carries it over WebSocket
// (/v1/ws) and HTTP (/v1/rpc), with /healthz and /metrics beside them.
// It bounds what one client can make the server hold (frames, replies,
// unread replies, unfinished messages, connections, TCP connections and
// how long an idle or half-open one lives), checks the token or, without
// one, refuses what a web page could have sent (guard.go), and turns the
// Manager's errors into JSON-RPC error codes. It uses only the exported
// API of package episodes, which knows nothing of the wire's transport.
package rpc
