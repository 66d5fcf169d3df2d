package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/schemas"
)

// toolInfo is what tools/list says of a tool beside its name,
// description and input schema: a title for people, the hints MCP
// defines (ToolAnnotations), and the JSON Schema of its structured
// content. No tool reaches outside the server's own databases and
// episodes, so none is open-world.
type toolInfo struct {
	title string
	// readOnly: the call changes nothing (no step, no episode started or
	// ended). destructive: it can end an episode, which no later call
	// undoes. idempotent: the same call again changes nothing more.
	readOnly, destructive, idempotent bool
	output                            json.RawMessage
}

// describe is a tool's toolInfo; false for an episode tool it has no
// words for, which then gets its name as title and the hints of a step
// that may end the episode (a test asks for words for every tool).
func describe(name string) (toolInfo, bool) {
	step := outputSchema("episode.step.result")
	switch name {
	case ToolListTasks:
		return toolInfo{title: "List the tasks", readOnly: true, idempotent: true, output: outputSchema("tasks.list.result")}, true
	case ToolStartEpisode: // it closes the session's previous episode if that one is still live
		return toolInfo{title: "Start an episode", destructive: true, output: outputSchema("episode.reset.result")}, true
	case ToolGetReward:
		return toolInfo{title: "Read the episode's reward", readOnly: true, idempotent: true, output: json.RawMessage(rewardSchema)}, true
	case ToolEndEpisode: // closing an ended episode again answers its summary and changes nothing
		return toolInfo{title: "End the episode", destructive: true, idempotent: true, output: outputSchema("episode.close.result")}, true
	// Each call of an episode's tool is a step: it takes a turn and is
	// recorded, and the turn that exhausts the budget ends the episode.
	case schemas.ToolInspectSchema:
		return toolInfo{title: "Inspect the database schema", output: step}, true
	case schemas.ToolExecuteSQL:
		return toolInfo{title: "Run a read-only SQL query", output: step}, true
	case schemas.ToolSearchValues:
		return toolInfo{title: "Search the database's values", output: step}, true
	case schemas.ToolDescribeColumn:
		return toolInfo{title: "Profile a column", output: step}, true
	case schemas.ToolSubmit:
		return toolInfo{title: "Submit the answer", destructive: true, output: step}, true
	}
	return toolInfo{title: name, destructive: true, output: step}, false
}

// tool is an mcp.Tool with the info's title, hints and output schema.
func (i toolInfo) tool(name, description string, input json.RawMessage) *mcp.Tool {
	destructive, openWorld := i.destructive, false
	return &mcp.Tool{Name: name, Title: i.title, Description: description, InputSchema: input, OutputSchema: i.output,
		Annotations: &mcp.ToolAnnotations{Title: i.title, ReadOnlyHint: i.readOnly, DestructiveHint: &destructive,
			IdempotentHint: i.idempotent, OpenWorldHint: &openWorld}}
}

// scalarCell is the schema of a cell of a result's rows: a JSON scalar,
// as package tools writes every value (JSONRows).
const scalarCell = `{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"}]}`

// outputSchema is a result's generated schema as tools/list gives it:
// without $schema (wireSchema), and with the bare true the generator
// writes for Go's any, which only a row's cells are, spelled as what a
// cell is. Clients that refuse boolean subschemas (the Inspector CLI's
// --strict check) accept it.
func outputSchema(name string) json.RawMessage {
	var root any
	if err := json.Unmarshal(wireSchema(name), &root); err != nil {
		panic(err) // wireSchema wrote it
	}
	var cell any
	json.Unmarshal([]byte(scalarCell), &cell)
	out, _ := json.Marshal(spellTrue(root, cell))
	return out
}

// spellTrue replaces, below a schema, every bare true in the place of a
// subschema (an items, a property) with with.
func spellTrue(node, with any) any {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if b, ok := v.(bool); ok && b && k == "items" {
				n[k] = with
				continue
			}
			if k == "properties" {
				if props, ok := v.(map[string]any); ok {
					for p, sub := range props {
						props[p] = subschema(sub, with)
					}
					continue
				}
			}
			n[k] = spellTrue(v, with)
		}
	case []any:
		for i, v := range n {
			n[i] = spellTrue(v, with)
		}
	}
	return node
}

// subschema is a property's schema with spellTrue applied: with itself
// for a bare true.
func subschema(sub, with any) any {
	if b, ok := sub.(bool); ok && b {
		return with
	}
	return spellTrue(sub, with)
}
