package episodes_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestResetParamErrorsNameTheIntegerExpected sends, through a real socket,
// reset params whose numbers are not integers the server can take: each is
// -32602 naming the field, the integer it expected and the value given.
func TestResetParamErrorsNameTheIntegerExpected(t *testing.T) {
	rc := newHarness(t, options{}).raw()
	tests := []struct{ params, want string }{
		{`{"max_turns":1e300}`, "max_turns: expected an integer, got 1e300"},
		{`{"max_turns":1.5}`, "max_turns: expected an integer, got 1.5"},
		{`{"max_turns":99999999999999999999}`, "max_turns: expected an integer, got 99999999999999999999 (out of range)"},
		{`{"max_turns":true}`, "max_turns: expected an integer, got a boolean"},
		{`{"seed":1.5}`, "seed: expected an integer, got 1.5"},
		{`{"seed":-1e19}`, "seed: expected an integer, got -1e19"},
		{`{"seed":"7"}`, "seed: expected an integer, got a string"},
		{`{"max_turns":0}`, "max_turns must be between 1 and 64, got 0"},
		{`{"max_turns":-3}`, "max_turns must be between 1 and 64, got -3"},
		{`{"max_turns":65}`, "max_turns must be between 1 and 64, got 65"},
	}
	for i, tt := range tests {
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"episode.reset","params":%s}`, i, tt.params)
		code, msg, _ := errorOf(t, rc.roundTrip(frame))
		if code != schemas.CodeInvalidParams || !strings.Contains(msg, tt.want) {
			t.Errorf("reset %s: code %d %q, want -32602 containing %q", tt.params, code, msg, tt.want)
		}
		if strings.Contains(msg, "got number") {
			t.Errorf("reset %s: %q says a number was not a number", tt.params, msg)
		}
	}
}

// TestResetMaxTurnsAbsentOrNullMeansTheDefault checks that only a missing
// (or null) max_turns takes the server's default.
func TestResetMaxTurnsAbsentOrNullMeansTheDefault(t *testing.T) {
	rc := newHarness(t, options{}).raw()
	for i, params := range []string{`{"task_id":"t/count"}`, `{"task_id":"t/count","max_turns":null}`} {
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"episode.reset","params":%s}`, i, params)
		reply := string(rc.roundTrip(frame))
		if !strings.Contains(reply, `"max_turns":8`) {
			t.Errorf("reset %s: %s, want the default max_turns 8", params, reply)
		}
	}
}
