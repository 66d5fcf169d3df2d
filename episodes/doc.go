// Package episodes runs sqlgym episodes: the Session state machine of one
// episode and the Manager that owns every live episode (limits, idle
// expiry, resume from any socket), which records them through a
// trajectory Writer. The wire's transport (JSON-RPC over WebSocket and
// HTTP) is package episodes/rpc, which uses only the exported API here.
//
// Data flows one way: socket -> dispatcher (rpc) -> manager -> session ->
// tool -> database, and back as an observation and a reward; every ended
// episode is handed to the Recorder on the way out.
package episodes
