package episodes

import "encoding/json"

// OriginTag is the tag that names the surface an episode came through
// (openenv, mcp, repl); the native protocol sets none.
const OriginTag = "origin"

// AddTags returns a reset's tags with add set over them, each value a
// JSON string: how a surface records itself (OriginTag) beside the
// caller's tags. raw must be a JSON object (absent or null: none yet);
// anything else fails as InvalidArgument.
func AddTags(raw json.RawMessage, add map[string]string) (json.RawMessage, error) {
	tags := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &tags); err != nil || tags == nil {
			return nil, errorf(InvalidArgument, "tags must be a JSON object, got %s", abbreviate(raw))
		}
	}
	for k, v := range add {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		tags[k] = b
	}
	return json.Marshal(tags)
}

// abbreviate cuts a long value for an error message.
func abbreviate(raw []byte) string {
	if len(raw) > 80 {
		return string(raw[:80]) + "..."
	}
	return string(raw)
}
