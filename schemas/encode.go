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

// AppendJSON appends Marshal's encoding of v to dst and returns the
// extended buffer: a caller that reuses its buffers (the trajectory log
// does, line after line) encodes without allocating one per value.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	a := appender{b: dst}
	enc := gojson.NewEncoder(&a)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return a.b[:len(a.b)-1], nil // Encode ends the value with a newline
}

// appender is an io.Writer that appends to a byte slice.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}
