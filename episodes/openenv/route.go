package openenv

import "strings"

// tasksRoute is the path below the prefix under which a base_url names
// its task: PREFIX/tasks/{task_id} serves every route PREFIX does, and a
// reset there (a reset message, POST /reset, openenv/session/create) that
// names no task plays that one. It is how a client that cannot send reset
// data, MCPToolClient in production mode, chooses its task.
const tasksRoute = "/tasks/"

// splitRoute splits a path below the prefix into the task a
// .../tasks/{task_id} base_url names ("" for none) and the route below
// it. A task id holds slashes (dataset/key): the route is the path's last
// segment. A path under /tasks/ naming no task or no route has no route.
func splitRoute(path string) (task, route string) {
	rest, ok := strings.CutPrefix(path, tasksRoute)
	if !ok {
		return "", path
	}
	i := strings.LastIndexByte(rest, '/')
	if i <= 0 {
		return "", ""
	}
	return rest[:i], rest[i:]
}
