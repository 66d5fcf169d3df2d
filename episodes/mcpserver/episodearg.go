package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// argEpisodeID is the argument that names the episode a call acts on.
const argEpisodeID = "episode_id"

// splitEpisodeID takes episode_id out of an episode tool's arguments: the
// episode it names ("" for none: absent or null) and the other
// arguments in their order, which are the native tool's. Arguments
// without it, and anything that is not a JSON object, are returned as
// they came, for the native step to judge in its own words.
func splitEpisodeID(tool string, raw json.RawMessage) (string, json.RawMessage, error) {
	if !bytes.Contains(raw, []byte(argEpisodeID)) && !bytes.Contains(raw, []byte(`\u`)) {
		return "", raw, nil // no key can spell it: the common call, read once, by the step
	}
	members, ok := objectMembers(raw)
	if !ok {
		return "", raw, nil
	}
	var id string
	found := false
	rest := make([]member, 0, len(members))
	for _, m := range members {
		if m.key != argEpisodeID {
			rest = append(rest, m)
			continue
		}
		if found {
			return "", nil, fmt.Errorf("%s: the argument %q is given twice", tool, argEpisodeID)
		}
		found = true
		var err error
		if id, err = episodeIDValue(tool, m.value); err != nil {
			return "", nil, err
		}
	}
	if !found {
		return "", raw, nil
	}
	return id, joinMembers(rest), nil
}

// episodeIDValue reads episode_id's value: a string that is not empty,
// or null for none.
func episodeIDValue(tool string, v json.RawMessage) (string, error) {
	if kindOf(v) == "null" {
		return "", nil
	}
	var id string
	if err := json.Unmarshal(v, &id); err != nil {
		return "", fmt.Errorf("%s: the argument %q must be a string (the id start_episode returned), not %s", tool, argEpisodeID, withArticle(kindOf(v)))
	}
	if id == "" {
		return "", fmt.Errorf("%s: the argument %q is empty: give the id start_episode returned, or leave it out for the session's episode",
			tool, argEpisodeID)
	}
	return id, nil
}

// member is one member of a JSON object: its key, decoded, and its value
// as it was written.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers reads a JSON object's members in their order; false when
// raw is not one object.
func objectMembers(raw json.RawMessage) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, member{key: tok.(string), value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // something after the object
	}
	return out, true
}

// joinMembers writes members as a JSON object, in their order.
func joinMembers(members []member) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		enc.Encode(m.key) // a string always encodes
		b.Truncate(b.Len() - 1)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
