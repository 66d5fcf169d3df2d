package bench

import (
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

// reply is a reply frame as the bench reads it: the result kept raw.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *schemas.Error  `json:"error"`
}

// decodeReply reads a reply frame; ok is false for a frame that is not a
// reply to one of the bench's requests (its ids are numbers).
func decodeReply(frame []byte) (id int64, result []byte, rpcErr *schemas.Error, ok bool) {
	var r reply
	if gojson.Unmarshal(frame, &r) != nil {
		return 0, nil, nil, false
	}
	id, err := strconv.ParseInt(string(r.ID), 10, 64)
	if err != nil {
		return 0, nil, nil, false
	}
	return id, r.Result, r.Error, true
}

// decodeStep reads a step's result into res: whole when full is set, and
// otherwise only the fields the counts need (an observation is skipped,
// not decoded).
func decodeStep(result []byte, full bool, res *schemas.StepResult) error {
	if full {
		return gojson.Unmarshal(result, res)
	}
	var slim stepReply
	if err := gojson.Unmarshal(result, &slim); err != nil {
		return err
	}
	*res = slim.result()
	return nil
}
