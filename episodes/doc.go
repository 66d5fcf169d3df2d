// Package episodes runs sqlgym episodes: the Session state machine of one
// episode and the Manager that owns every live episode (limits, idle
// expiry, resume from any socket), which records them through a
// trajectory Writer. The wire's protocol (JSON-RPC) is package
// episodes/jsonrpc, which uses only the exported API here; its transport
// (WebSocket and HTTP) is package episodes/transport.
//
// Data flows one way: socket (transport) -> dispatcher (jsonrpc) -> manager -> session ->
// tool -> database, and back as an observation and a reward; every ended
// episode is handed to the Recorder on the way out.
package episodes
