// Package episodes runs sqlgym episodes: the session state machine of one
// episode and the Manager that owns every live episode (limits, idle
// expiry, resume from any socket), which records them through a
// trajectory Writer. It speaks only its domain: its calls take and
// return the schemas' params and results, and fail with errors of a
// Kind (errors.go: NotFound, Ended, Busy, Capacity, InvalidArgument,
// TaskNotFound, Internal) that each surface maps to its own codes. The
// wire's protocol (JSON-RPC) is package episodes/jsonrpc, which uses only
// the exported API here and maps the kinds to JSON-RPC error codes; its
// transport (WebSocket and HTTP) is package episodes/transport.
//
// Data flows one way: socket (transport) -> dispatcher (jsonrpc) -> manager -> session ->
// tool -> database, and back as an observation and a reward; every reset,
// step and end is handed to Config.Recorder (a trajlog.Writer) on the way out.
package episodes
