package export

import (
	"bytes"
	"encoding/json"
)

// Argument shapes of a call (ChatOptions.Arguments).
const (
	// ArgumentsObject writes a call's arguments as the JSON object, which
	// Hugging Face chat templates render with their tojson filter or
	// walk key by key (Qwen3.5/3.6, GLM-4-MoE).
	ArgumentsObject = "object"
	// ArgumentsString writes them as a JSON string holding the object,
	// as OpenAI's chat API carries them and as templates that concatenate
	// them (DeepSeek-V3's original) need.
	ArgumentsString = "string"
)

// callArguments is a call's recorded arguments in shape: compact JSON of
// the object, or a JSON string holding it; {} for none (absent or null).
// A JSON string that holds an object is that object. Arguments that are
// not an object (the call failed with bad_arguments) are
// errUnrenderable: OpenAI's format wants a string of a JSON object, and
// chat templates walk the object or write it with tojson.
//
// The JSON is encoded anew, with <, > and & as themselves: recorded JSON
// may hold them as \u003c, and a model trained on an arguments string
// would learn to write that.
func callArguments(raw json.RawMessage, shape string) (json.RawMessage, error) {
	v := decodeNumbers(raw)
	if s, ok := v.(string); ok {
		v = decodeNumbers([]byte(s))
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		v = map[string]any{}
	}
	if _, isObject := v.(map[string]any); !isObject {
		return nil, errUnrenderable
	}
	if shape == ArgumentsString {
		return encode(string(encode(v))), nil
	}
	return encode(v), nil
}

// decodeNumbers decodes one JSON value, numbers kept as their text; nil
// when raw is empty or not JSON.
func decodeNumbers(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil
	}
	return v
}

// encode is v as compact JSON with <, > and & as they are (json.Marshal
// would escape them, and SQL is full of them).
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // decoded JSON and strings always encode
	return bytes.TrimRight(b.Bytes(), "\n")
}
