package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// decodeParams decodes a method's params strictly: an object (or nothing)
// with no unknown field and the right types; anything else is an
// invalid-params error that says what was wrong.
func decodeParams(raw json.RawMessage, v any) *schemas.Error {
	raw, e := paramsObject(raw)
	if e != nil {
		return e
	}
	return decodeStrict(raw, v)
}

// decodeFast is decodeParams for params that fast reads in their usual
// shapes; whatever fast does not read goes to the strict decoder, so the
// answer, errors included, is decodeParams's. The params are returned by
// value: on the fast path they take no allocation of their own.
func decodeFast[T any](raw json.RawMessage, fast func([]byte) (T, bool)) (T, *schemas.Error) {
	raw, e := paramsObject(raw)
	if e != nil {
		var zero T
		return zero, e
	}
	if p, ok := fast(raw); ok {
		return p, nil
	}
	var p T
	e = decodeStrict(raw, &p)
	return p, e
}

// paramsObject returns params that must be an object: nothing or null
// stands for {}.
func paramsObject(raw json.RawMessage) (json.RawMessage, *schemas.Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return nil, schemas.Errorf(schemas.CodeInvalidParams, "params must be a JSON object")
	}
	return raw, nil
}

// decodeStrict decodes params, an object, with encoding/json: no unknown
// field, nothing after the object.
func decodeStrict(raw []byte, v any) *schemas.Error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return schemas.Errorf(schemas.CodeInvalidParams, "invalid params: %s", describeJSONError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return schemas.Errorf(schemas.CodeInvalidParams, "invalid params: data after the params object")
	}
	return nil
}

// describeJSONError rewords encoding/json's errors for a user: the field,
// the kind of value it takes and the value that was given.
func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "value"
		}
		return fmt.Sprintf("%s: expected %s, got %s", field, jsonKind(te.Type), givenValue(te.Value))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return msg
}

// jsonKind names the JSON value a Go type takes; for an integer, with its
// range when that is narrower than what a client would send.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if t.Bits() < 64 {
			return fmt.Sprintf("an integer from %d to %d", -(int64(1) << (t.Bits() - 1)), int64(1)<<(t.Bits()-1)-1)
		}
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if t.Bits() < 64 {
			return fmt.Sprintf("an integer from 0 to %d", uint64(1)<<t.Bits()-1)
		}
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.Kind().String()
}

// givenValue rewords UnmarshalTypeError.Value, which is "number 1.5" for
// a number (its literal text) and the JSON kind for anything else.
func givenValue(v string) string {
	if num, ok := strings.CutPrefix(v, "number "); ok {
		if !strings.ContainsAny(num, ".eE") {
			return num + " (out of range)" // an integer literal that does not fit
		}
		return num
	}
	switch v {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return v
}

// checkArguments holds a tool call's arguments to JSON-RPC's wire type,
// an object (none or null read as {}); the domain checks the rest of the
// step (episodes.Manager.Enqueue).
func checkArguments(a *schemas.Action) *schemas.Error {
	if a.Tool == "" || a.Message != nil {
		return nil
	}
	args := bytes.TrimSpace(a.Arguments)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		a.Arguments = json.RawMessage("{}")
	} else if args[0] != '{' {
		return schemas.Errorf(schemas.CodeInvalidParams, "action.arguments must be a JSON object")
	}
	return nil
}
