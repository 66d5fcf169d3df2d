package jsonrpc

import (
	"encoding/json"
	"testing"
)

// TestDescribeJSONErrorCoversEveryIntegerKind decodes a fraction, and a
// value past the type's range, into every integer kind: each says the
// field and value given and which integers it takes.
func TestDescribeJSONErrorCoversEveryIntegerKind(t *testing.T) {
	var v struct {
		I   int     `json:"i"`
		I8  int8    `json:"i8"`
		I16 int16   `json:"i16"`
		I32 int32   `json:"i32"`
		I64 *int64  `json:"i64"`
		U   uint    `json:"u"`
		U8  uint8   `json:"u8"`
		U16 uint16  `json:"u16"`
		U32 uint32  `json:"u32"`
		U64 uint64  `json:"u64"`
		UP  uintptr `json:"up"`
		F   float64 `json:"f"`
	}
	tests := []struct{ doc, want string }{
		{`{"i":2.5}`, "i: expected an integer, got 2.5"},
		{`{"i":1e300}`, "i: expected an integer, got 1e300"},
		{`{"i8":128}`, "i8: expected an integer from -128 to 127, got 128 (out of range)"},
		{`{"i16":1.5}`, "i16: expected an integer from -32768 to 32767, got 1.5"},
		{`{"i32":-2147483649}`, "i32: expected an integer from -2147483648 to 2147483647, got -2147483649 (out of range)"},
		{`{"i64":9223372036854775808}`, "i64: expected an integer, got 9223372036854775808 (out of range)"},
		{`{"u":-1}`, "u: expected a non-negative integer, got -1 (out of range)"},
		{`{"u8":256}`, "u8: expected an integer from 0 to 255, got 256 (out of range)"},
		{`{"u16":0.5}`, "u16: expected an integer from 0 to 65535, got 0.5"},
		{`{"u32":4294967296}`, "u32: expected an integer from 0 to 4294967295, got 4294967296 (out of range)"},
		{`{"u64":1e3}`, "u64: expected a non-negative integer, got 1e3"},
		{`{"up":-5}`, "up: expected a non-negative integer, got -5 (out of range)"},
		{`{"f":"x"}`, "f: expected a number, got a string"},
		{`{"i":{}}`, "i: expected an integer, got an object"},
		{`{"i":[1]}`, "i: expected an integer, got an array"},
	}
	for _, tt := range tests {
		err := json.Unmarshal([]byte(tt.doc), &v)
		if err == nil {
			t.Fatalf("%s decoded", tt.doc)
		}
		if got := describeJSONError(err); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.doc, got, tt.want)
		}
	}
}
