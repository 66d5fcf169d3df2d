package trajlog

import (
	"encoding/json"
	"strconv"
)

// ParseTags reads an episode's tags (Trajectory.Tags, a JSON object): nil
// when there are none or they are not an object.
func ParseTags(raw json.RawMessage) map[string]json.RawMessage {
	var tags map[string]json.RawMessage
	if json.Unmarshal(raw, &tags) != nil {
		return nil
	}
	return tags
}

// TagText is a tag's value as text, the one rule by which filters compare
// tags and reports group by them: a JSON string by its unquoted value, any
// other value (number, boolean, null, object, array) by its JSON text as
// recorded, so the string "7" and the number 7 are both "7" while 7.0
// stays "7.0" and null is "null". A missing tag (a nil v) is "": callers
// that must tell it from the empty string look the key up themselves.
func TagText(v json.RawMessage) string {
	if len(v) > 0 && v[0] == '"' {
		if s, err := strconv.Unquote(string(v)); err == nil {
			return s // the common case, without json's reflection
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s // escapes JSON has and Go does not, such as \/
		}
	}
	return string(v)
}

// TagValue is the text of the tag key among an episode's raw tags, by
// TagText's rule; "" when the episode has no such tag.
func TagValue(raw json.RawMessage, key string) string {
	return TagText(ParseTags(raw)[key])
}
