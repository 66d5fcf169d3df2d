// Package mcpserver serves sqlgym's episodes as a Model Context Protocol
// server, built on the official Go SDK (modelcontextprotocol/go-sdk):
// over Streamable HTTP (Handler, which sqlgym serve mounts at /mcp) and
// over stdio (RunStdio, behind sqlgym mcp).
//
// An MCP session holds one episode at a time. Its tools are list_tasks,
// start_episode, get_reward and end_episode, and the episode's own tools
// (inspect_schema, execute_sql, search_values, describe_column, submit),
// whose descriptions and input schemas are the native protocol's, from
// package tools' registry, with an optional episode_id added. A call of
// one of them is one episode.step, so it earns what the same call earns
// over sqlgym/1. Every episode started here is recorded as native ones
// are, its tags holding origin=mcp. Every tool has a title, the hints MCP
// defines and an output schema (describe.go); arguments are refused in
// the tool's words (args.go).
//
// A call that names its episode (episode_id) lets a client that opens a
// session per call play: an episode is its starter's principal's, the
// bearer token its call carried, and no other's (owners.go); one whose
// session ended is closed once SessionIdle passes without a call on it.
//
// All calls into the episode Manager go through episodes.go.
package mcpserver
