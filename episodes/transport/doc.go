// Package transport carries protocol sqlgym/1 (package jsonrpc) over
// WebSocket (/v1/ws) and HTTP (/v1/rpc), with /healthz, /metrics and the
// Mounts beside them. It bounds what one client can make the server hold
// (frames, unread replies, unfinished messages, connections, TCP
// connections and how long an idle or half-open one lives), pushes back
// on a client that sends faster than its replies are read, checks the
// token or, without one, refuses what a web page could have sent
// (guard.go), and writes each socket's replies through an elected
// writer (writesched.go) into a corked connection (base/corkconn). It
// meets the protocol at jsonrpc.Dispatcher.Prepare, Job.Run and
// jsonrpc.ReleaseFrame, and knows nothing of episodes.
package transport
