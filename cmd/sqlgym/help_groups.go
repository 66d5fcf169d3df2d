package main

// flagGroup is a heading of a command's -h and the flags under it.
type flagGroup struct {
	title     string
	flags     []string
	inProcess bool // repl: the in-process server's, ignored with --url
}

// Headings shared by serve and repl, in the order -h shows them.
var (
	groupDatasets = flagGroup{title: "Datasets", flags: []string{
		"dataset", "skip-db-check", "prompt-descriptions", "prompt-style", "dataset-prompt-style"}}
	groupEngines = flagGroup{title: "Engines", flags: []string{
		"engine", "db-conns", "db-running", "db-open-max", "db-stmt-cache-bytes",
		"pg-conns", "pg-schema-conns", "pg-statement-memory", "mysql-conns", "mysql-db-conns", "mysql-session-memory", "mysql-temp-disk"}}
	groupEpisodes = flagGroup{title: "Episodes", flags: []string{
		"reward", "max-turns", "max-calls-per-turn", "query-timeout", "submit-timeout", "gold-timeout",
		"row-limit", "observation-bytes", "idle-timeout", "max-episodes"}}
	groupJudging = flagGroup{title: "Judging", flags: []string{"judge", "ties", "testsuite-dir"}}
	groupTools   = flagGroup{title: "Tools", flags: []string{
		"tools", "dataset-tools", "schema-cache-bytes", "search-concurrency",
		"value-index-build", "value-index-dir", "value-index-max-bytes", "value-index-max-chars",
		"value-index-max-distinct", "value-index-max-values", "value-index-build-timeout"}}
	groupTrajectories = flagGroup{title: "Trajectories", flags: []string{
		"data-dir", "trajectories", "durability", "commit-delay", "sync-interval", "recent-episodes", "recent-bytes"}}
	groupLogging = flagGroup{title: "Logging", flags: []string{
		"log-level", "log-format", "cpuprofile", "memprofile"}}
	groupConfig = flagGroup{title: "Configuration", flags: []string{"config"}}
)

// serveEssentials are the flags serve -h shows, the rest left to
// --help-all. The rule (docs/configuration.md): a flag is here when a
// first deployment decides it: where the server listens and who may
// connect, what it serves on which engine, what an episode allows and
// pays, how it is judged, where episodes are recorded, how the server
// logs, and one bound each on memory, frames and connections. Bounds
// under load, pools, caches, transport timeouts and the value index's
// tuning have defaults that fit and stay in --help-all.
var serveEssentials = []string{
	"addr", "token", "insecure", "allowed-hosts", "allowed-origins", "max-connections",
	"dataset", "skip-db-check", "prompt-descriptions",
	"engine", "db-conns", "pg-conns",
	"reward", "max-turns", "max-calls-per-turn", "query-timeout", "submit-timeout",
	"row-limit", "observation-bytes", "idle-timeout", "max-episodes",
	"judge", "ties",
	"tools", "dataset-tools", "value-index-build",
	"max-live-bytes", "max-frame-bytes",
	"data-dir", "trajectories", "durability",
	"log-level", "log-format",
	"config",
}

// essentialFlags are the flags a command's -h shows, or nil for all of
// them.
func essentialFlags(cmd string) map[string]bool {
	if cmd != "serve" {
		return nil
	}
	m := make(map[string]bool, len(serveEssentials))
	for _, name := range serveEssentials {
		m[name] = true
	}
	return m
}

// helpGroups are the headings of a command's -h; commands with few flags
// have none and list them in one block.
func helpGroups(cmd string) []flagGroup {
	switch cmd {
	case "serve":
		return []flagGroup{
			{title: "Listening", flags: []string{"addr", "token", "insecure", "allowed-hosts", "allowed-origins",
				"max-connections", "max-tcp-connections", "header-timeout", "idle-conn-timeout", "stall-timeout",
				"reply-delay", "shutdown-grace", "ready-interval", "ready-timeout", "console-max-live", "console-index-episodes",
				"console-max-reports", "console-write-timeout", "console-login-failures"}},
			groupDatasets, groupEngines, groupEpisodes, groupJudging, groupTools,
			{title: "Limits", flags: []string{"max-frame-bytes", "max-batch", "max-reply-bytes", "max-conn-bytes",
				"max-reading-bytes", "max-live-bytes", "max-episode-bytes", "max-tags-bytes", "max-openenv-sessions"}},
			{title: "Replicas", flags: []string{"takeover", "lease-ttl", "replica-id"}},
			{title: "MCP (Streamable HTTP at /mcp)", flags: []string{"max-mcp-sessions", "mcp-session-idle"}},
			groupTrajectories, groupLogging, groupConfig,
		}
	case "mcp":
		return []flagGroup{
			groupDatasets, groupEngines, groupEpisodes, groupJudging, groupTools, groupTrajectories, groupLogging, groupConfig,
		}
	case "repl":
		inProc := func(g flagGroup) flagGroup {
			g.title += " (in-process server; ignored with --url)"
			g.inProcess = true
			return g
		}
		return []flagGroup{
			{title: "Connecting", flags: []string{"url", "token"}},
			{title: "Terminal", flags: []string{"history", "echo"}},
			inProc(groupDatasets), inProc(groupEngines), inProc(groupEpisodes), inProc(groupJudging), inProc(groupTools),
			inProc(groupTrajectories), inProc(groupLogging), groupConfig,
		}
	}
	return nil
}
