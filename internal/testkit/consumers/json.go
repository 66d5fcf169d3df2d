package consumers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// object decodes one JSON line as Python's json.loads would, into maps,
// slices, strings, float64s, bools and nils.
func object(line []byte) (map[string]any, error) {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	return v, nil
}

// messages is v as a list of message objects.
func messages(v any, what string) ([]map[string]any, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is %T, want a list of messages", what, v)
	}
	out := make([]map[string]any, len(list))
	for i, m := range list {
		if out[i], ok = m.(map[string]any); !ok {
			return nil, fmt.Errorf("%s[%d] is %T, want an object", what, i, m)
		}
	}
	return out, nil
}

// dumps is Python's json.dumps(v, ensure_ascii=False) up to spacing,
// which no rule here depends on.
func dumps(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// loads is Python's json.loads.
func loads(s string) (any, error) {
	var v any
	err := json.Unmarshal([]byte(s), &v)
	return v, err
}

// sortedKeys is m's keys in order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
