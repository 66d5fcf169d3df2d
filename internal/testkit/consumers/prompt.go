package consumers

import (
	"fmt"
	"strings"
)

// CallSyntax are the call-syntax instructions of sqlgym's text prompt
// style: its hermes blocks, its tags, and the JSON shape it asks a call
// to be written in. A system prompt holding one asks for a syntax of its
// own beside the template's.
var CallSyntax = []string{"<tool_call>", "</tool_call>", "<sql>", "<solution>", `"arguments"`, "To call a tool"}

// CheckPrompt returns what is wrong with how a chat rendered by t with
// tools= tools tells the model its tools: the system prompt must hold no
// call-syntax instruction (CallSyntax: the template writes its own), and
// the tools must be shown once: by the template (Template.Tools), or by
// the system prompt where the template never reads tools=, not both and
// not neither. The system prompt lists a tool when it holds its
// description, or its name as a list entry ("- name", "name {") or as
// JSON ("name":"..."). A chat with no tools= and no call is not checked.
func (t Template) CheckPrompt(msgs []map[string]any, tools []any) error {
	system := ""
	if len(msgs) > 0 && msgs[0]["role"] == "system" {
		system, _ = msgs[0]["content"].(string)
	}
	for _, s := range CallSyntax {
		if strings.Contains(system, s) {
			return fmt.Errorf("the system prompt holds the call syntax %q: the template writes its own", s)
		}
	}
	if len(tools) == 0 && !callsIn(msgs) {
		return nil
	}
	byTemplate := t.Tools != "" && len(tools) > 0
	byPrompt := ""
	for _, tool := range tools {
		if name := listedTool(system, tool); name != "" {
			byPrompt = name
			break
		}
	}
	switch {
	case byTemplate && byPrompt != "":
		return fmt.Errorf("the tools are shown twice: by the template (%s) and by the system prompt (%s)", t.Tools, byPrompt)
	case !byTemplate && byPrompt == "" && t.Tools == "":
		return fmt.Errorf("%s: the template never reads tools=, and the system prompt lists no tool: the model sees none", t.Name)
	case !byTemplate && byPrompt == "":
		return fmt.Errorf("no tools= for a chat with calls, and the system prompt lists no tool: the model sees none")
	}
	return nil
}

// listedTool is the name of tool (a definition in the OpenAI shape) when
// system lists it, else "".
func listedTool(system string, tool any) string {
	def, _ := tool.(map[string]any)
	fn, _ := def["function"].(map[string]any)
	name, _ := fn["name"].(string)
	desc, _ := fn["description"].(string)
	for _, s := range []string{"- " + name, name + " {", `"name":"` + name + `"`, `"name": "` + name + `"`} {
		if name != "" && strings.Contains(system, s) {
			return name
		}
	}
	if desc != "" && strings.Contains(system, desc) {
		return name
	}
	return ""
}
