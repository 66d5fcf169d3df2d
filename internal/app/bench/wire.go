package bench

import (
	"bytes"
	"encoding/json"
	"strconv"

	gojson "github.com/goccy/go-json"

	"github.com/sqlgym/sqlgym/schemas"
)

// appendRequest appends a JSON-RPC request frame to b.
func appendRequest(b []byte, id int64, method string, params []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b = append(b, params...)
	return append(b, '}')
}

// replyPrefix is how the server begins every reply frame, up to the id.
const replyPrefix = `{"jsonrpc":"2.0","id":`

// replyID reads the id of a reply frame: at once when the frame begins
// as the server writes replies, by decoding it otherwise. ok is false for
// a frame that is not a reply to one of the bench's requests (its ids are
// numbers).
func replyID(frame []byte) (id int64, ok bool) {
	if rest, found := bytes.CutPrefix(frame, []byte(replyPrefix)); found {
		if end := bytes.IndexByte(rest, ','); end > 0 {
			if id, err := strconv.ParseInt(string(rest[:end]), 10, 64); err == nil {
				return id, true
			}
		}
	}
	var r struct {
		ID json.RawMessage `json:"id"`
	}
	if gojson.Unmarshal(frame, &r) != nil {
		return 0, false
	}
	id, err := strconv.ParseInt(string(r.ID), 10, 64)
	return id, err == nil
}

// decodeFrame reads a reply frame, its result into result, in one pass,
// and returns its JSON-RPC error, if any; ok is false for a frame that
// could not be read.
func decodeFrame[T any](frame []byte, result *T) (rpcErr *schemas.Error, ok bool) {
	f := struct {
		Result *T             `json:"result"`
		Error  *schemas.Error `json:"error"`
	}{Result: result}
	if gojson.Unmarshal(frame, &f) != nil {
		return nil, false
	}
	return f.Error, true
}

// decodeStep reads a step's reply frame into res: whole when full is set,
// and otherwise only the fields the counts need (an observation is
// skipped, not decoded).
func decodeStep(frame []byte, full bool, res *schemas.StepResult) (*schemas.Error, bool) {
	if full {
		return decodeFrame(frame, res)
	}
	var slim stepReply
	rpcErr, ok := decodeFrame(frame, &slim)
	*res = slim.result()
	return rpcErr, ok
}
