package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sameAsStd checks that Marshal gives encoding/json's bytes for v, and
// fails where encoding/json fails.
func sameAsStd(t *testing.T, v any) {
	t.Helper()
	want, werr := json.Marshal(v)
	got, gerr := Marshal(v)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("encoding/json error %v, Marshal error %v", werr, gerr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal differs from encoding/json:\n got %s\nwant %s", got, want)
	}
	prefix := []byte("prefix:")
	appended, aerr := AppendJSON(prefix, v)
	if (werr == nil) != (aerr == nil) {
		t.Fatalf("encoding/json error %v, AppendJSON error %v", werr, aerr)
	}
	if werr == nil && !bytes.Equal(appended, append([]byte("prefix:"), want...)) {
		t.Fatalf("AppendJSON differs from encoding/json:\n got %s\nwant prefix:%s", appended, want)
	}
}

// protocolValues builds one value of each type the server encodes on the
// hot path, with s, raw, f and n put wherever such a value may appear.
func protocolValues(s string, raw []byte, f float64, n int64) []any {
	at := time.Unix(n%(1<<40), n%1e9).UTC()
	args := json.RawMessage(raw)
	text := s
	step := StepResult{
		Observation: Observation{Role: "tool", Name: s, Content: s},
		Reward:      f, Terminated: n%2 == 0, Truncated: n%3 == 0,
		Info: StepInfo{Turn: int(n % 64), TurnsLeft: 3, Tool: s, Error: &ToolError{Code: s, Message: s},
			Result: &ResultInfo{Columns: []string{s, "b"}, Rows: [][]any{{n, f, s, []byte(s), nil}, {int64(-1), 0.1, "", []byte{}, nil}},
				RowCount: 2, Truncated: true, ElapsedMS: Milliseconds(time.Duration(n))},
			RewardComponents: map[string]float64{"execution": f, s: -0.15000000000000002, "format": 1e-7}, Outcome: s},
	}
	rec := StepRecord{Turn: 1, Action: Action{Tool: s, Arguments: args, Text: &text}, Tool: s, Arguments: args,
		Observation: s, ResultMeta: &ResultMeta{Columns: []string{s}, RowCount: int(n % 100), ElapsedMS: f},
		Reward: f, RewardComponents: map[string]float64{s: f}, Outcome: s, ElapsedMS: f, At: at}
	traj := Trajectory{EpisodeID: s, Tags: args, Messages: []Message{{Role: "user", Content: s}},
		StartedAt: at, EndedAt: &at, FinalReward: f, Steps: []StepRecord{rec}, CloseComponents: map[string]float64{s: f}}
	return []any{
		&step, &rec, &traj,
		&Response{JSONRPC: "2.0", ID: json.RawMessage(`"` + "7" + `"`), Result: &step},
		&Response{JSONRPC: "2.0", ID: NullID, Error: &Error{Code: CodeInvalidParams, Message: s, Data: map[string]any{s: f, "n": n}}},
		&ResetResult{EpisodeID: s, Messages: []Message{{Role: "system", Content: s}}, Tools: []Tool{}},
	}
}

func TestMarshalMatchesEncodingJSON(t *testing.T) {
	inputs := []struct {
		s   string
		raw string
		f   float64
		n   int64
	}{
		{"<script>&amp;\u2028\u2029", `{"sql": "SELECT 1",` + "\n" + `  "x": [1, 2 ]}`, 1e21, 1 << 60},
		{"\x00\x1f\"\\\x7f é \xff\xfe invalid utf-8", ` [ 1 , "a" ] `, -0.15000000000000002, -42},
		{"", `null`, 1e-7, 0},
		{"line\nbreak\ttab", `"a string"`, math.MaxFloat64, math.MaxInt64},
		{"x", `{"a":{"b":[true,false,null]}}`, 123456789.123, 5},
		{"bad raw", `{bad`, 0, 1},
		{"nan", `{}`, math.NaN(), 1},
		{"inf", `{}`, math.Inf(-1), 1},
	}
	for _, in := range inputs {
		for _, v := range protocolValues(in.s, []byte(in.raw), in.f, in.n) {
			sameAsStd(t, v)
		}
	}
}

func FuzzMarshalMatchesEncodingJSON(f *testing.F) {
	f.Add("<&>\u2028", []byte(`{"a": 1}`), 0.1, int64(3))
	f.Add("\xff", []byte(" [1,\n2] "), -0.15000000000000002, int64(-1))
	f.Fuzz(func(t *testing.T, s string, raw []byte, x float64, n int64) {
		for _, v := range protocolValues(s, raw, x, n) {
			sameAsStd(t, v)
		}
	})
}

// TestAppendJSONReusesNothingOfCallers encodes from several goroutines at
// once, each into a buffer it reuses, with failing values in between:
// the pooled encoders must keep no caller's bytes and mix no two values.
func TestAppendJSONReusesNothingOfCallers(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			buf := []byte("keep:")
			for i := range 200 {
				v := &ToolError{Code: strconv.Itoa(g), Message: strings.Repeat("m", i)}
				want, _ := json.Marshal(v)
				out, err := AppendJSON(buf[:5], v)
				if err != nil || string(out) != "keep:"+string(want) {
					errs <- fmt.Errorf("goroutine %d value %d: %s, %v", g, i, out, err)
					return
				}
				buf = out
				if bad, err := AppendJSON(buf[:5], math.NaN()); err == nil || string(bad) != "keep:" {
					errs <- fmt.Errorf("goroutine %d: NaN gave %q, %v; want the buffer back and an error", g, bad, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
