// Package openenv serves sqlgym's episodes through OpenEnv's wire contract
// (meta-pytorch/OpenEnv, src/openenv/core/env_server): a WebSocket at
// /ws with one episode per session and the messages reset, step, state,
// close and mcp; HTTP POST /reset and /step, GET /state, /schema,
// /metadata and /health; and JSON-RPC tools/list and tools/call over POST
// /mcp. Its Handler is mounted under a prefix (sqlgym serve mounts it at
// /openenv) behind the guards of the native server, so OpenEnv's generic
// clients (EnvClient, MCPToolClient) play sqlgym's tasks with no glue.
// Every route is also served below PREFIX/tasks/{task_id}, where resets
// play that task: a client that sends no reset data (MCPToolClient in
// production mode) chooses its task by its base_url.
//
// Every episode runs on the same episodes.Manager as the native protocol's,
// is recorded as native ones are, and carries the tag origin=openenv. All
// calls into the Manager go through episodes.go.
package openenv
