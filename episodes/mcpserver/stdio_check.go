package mcpserver

import (
	"bytes"
	"encoding/json"
)

// envelope is what the gate reads of a JSON-RPC message: enough to tell
// a request, a notification or a response from anything else.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// check returns line when it is one JSON-RPC 2.0 message the SDK can
// read, or the error reply saying why it is not.
func check(line []byte) ([]byte, *rpcError) {
	if !json.Valid(line) {
		return nil, &rpcError{Code: codeParseError, Message: "parse error: the line is not one JSON value (a NUL byte, a cut value, or nesting deeper than 10000)"}
	}
	switch line[0] {
	case '[':
		return nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: batches are not supported (MCP 2025-06-18 removed them); send one message per line"}
	case '{':
	default:
		return nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: a message is a JSON object"}
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: " + err.Error()}
	}
	if why := env.invalid(); why != "" {
		return nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: " + why}
	}
	return line, nil
}

// invalid says what makes env no JSON-RPC 2.0 message, "" when nothing.
func (env *envelope) invalid() string {
	switch {
	case env.JSONRPC != "2.0":
		return `"jsonrpc" must be "2.0"`
	case env.ID != nil && !isIDValue(env.ID):
		return `"id" must be a string or a number`
	case env.Method != nil && (len(env.Method) == 0 || env.Method[0] != '"'):
		return `"method" must be a string`
	case env.Method == nil && env.ID == nil:
		return `a message has a "method" (a request or notification) or an "id" (a response)`
	case env.Method == nil && env.Result == nil && env.Error == nil:
		return `a response has a "result" or an "error"`
	}
	return ""
}

// isIDValue says whether raw is an id JSON-RPC allows a request: a
// string or a number (null is a response's to a request it could not
// read).
func isIDValue(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	c := raw[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}
