package episodes

import (
	"encoding/json"
	"strings"
)

// GroupTag is the tag that names an episode's group: the episodes a
// trainer samples together for one prompt (GRPO's group), which share
// one holder on the engines (env.WithHolder).
const GroupTag = "group"

// holderOf is whom an episode's statements run for on the engines: its
// group (tags.group, a string or a number) when the tags name one, else
// the episode alone. A group's statements on one database may not take
// the last quarter of its connections while the group runs one already,
// so one group's slow SQL leaves room for every other episode's first
// statement there (docs/engines.md, "Shares").
func holderOf(id string, tags json.RawMessage) string {
	var t map[string]json.RawMessage
	if len(tags) == 0 || json.Unmarshal(tags, &t) != nil {
		return "episode:" + id
	}
	g := strings.TrimSpace(string(t[GroupTag]))
	if g == "" || g == "null" || g[0] == '{' || g[0] == '[' {
		return "episode:" + id
	}
	return "group:" + g
}
