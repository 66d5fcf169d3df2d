package schemas

import gojson "github.com/goccy/go-json"

// Marshal encodes v as encoding/json.Marshal does, byte for byte (HTML
// characters escaped, raw messages compacted, map keys sorted, floats
// formatted alike), in about half the time and with fewer allocations:
// every reply frame and every trajectory line goes through it, once or
// more per step. The equivalence is tested over the protocol's types
// (encode_test.go); decoding stays with encoding/json, whose error
// messages the server rewords for clients.
func Marshal(v any) ([]byte, error) {
	return gojson.Marshal(v)
}
