package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

func TestParseTables(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{"plain", "2 tables (call inspect_schema ...):\nsinger(id INTEGER, name TEXT)\nconcert(id INTEGER)",
			[]string{"singer", "concert"}},
		{"quoted", "2 tables (...):\n\"Order Items\"(id INTEGER)\n\"say \"\"hi\"\"\"(x TEXT)",
			[]string{`"Order Items"`, `"say ""hi"""`}},
		{"cut listing", "3 tables (...):\na(x)\n(2 more tables not shown: output cut at 256 bytes; inspect a table by name to see it)",
			[]string{"a"}},
		{"no tables", "The database has no tables.", nil},
		{"broken quote", "1 tables (...):\n\"open(x)", nil},
	}
	for _, tt := range tests {
		if got := parseTables(tt.content); !slices.Equal(got, tt.want) {
			t.Errorf("%s: parseTables = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPickTable(t *testing.T) {
	tables := []string{"a", "b", "c"}
	tests := []struct {
		n    int64
		want string
	}{{0, "a"}, {1, "b"}, {5, "c"}, {9, "a"}}
	for _, tt := range tests {
		if got := pickTable(tables, tt.n); got != tt.want {
			t.Errorf("pickTable(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := pickTable(nil, 3); got != "" {
		t.Errorf("pickTable of no tables = %q, want empty", got)
	}
}

func TestHistogramQuantiles(t *testing.T) {
	tests := []struct {
		name   string
		values []time.Duration
		q      []float64
		want   []time.Duration
	}{
		{"empty", nil, []float64{0.5, 0.99}, []time.Duration{0, 0}},
		{"one value", []time.Duration{7 * time.Millisecond}, []float64{0.5, 0.99}, []time.Duration{7 * time.Millisecond, 7 * time.Millisecond}},
		{"small exact", []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []float64{0.5, 0.9, 1}, []time.Duration{5, 9, 10}},
		{"1 to 1000 us", spread(1000, time.Microsecond), []float64{0.5, 0.9, 0.99}, []time.Duration{500 * time.Microsecond, 900 * time.Microsecond, 990 * time.Microsecond}},
	}
	for _, tt := range tests {
		var h histogram
		for _, v := range tt.values {
			h.record(v)
		}
		got := h.quantiles(tt.q...)
		for i := range got {
			if !near(got[i], tt.want[i]) {
				t.Errorf("%s: quantile %v = %v, want %v within 1.6%%", tt.name, tt.q[i], got[i], tt.want[i])
			}
		}
	}
}

// spread is n durations, unit, 2*unit, ... n*unit.
func spread(n int, unit time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * unit
	}
	return out
}

func near(got, want time.Duration) bool {
	return float64(got) >= float64(want)*(1-1.0/64) && float64(got) <= float64(want)*(1+1.0/64)
}

// TestBucketsCoverEveryValue checks the bucket layout: each value lands in
// a bucket whose middle is within 1/64 of it, and buckets are in order.
func TestBucketsCoverEveryValue(t *testing.T) {
	prev := -1
	for _, v := range []int64{0, 1, 127, 128, 129, 255, 256, 1000, 1 << 20, 123456789, 1 << 40, 1<<63 - 1} {
		i := bucketOf(v)
		if i < prev || i >= len(histogram{}.counts) {
			t.Errorf("bucketOf(%d) = %d, after %d of %d buckets", v, i, prev, len(histogram{}.counts))
		}
		prev = i
		if mid := bucketValue(i); !near(time.Duration(mid), time.Duration(v)) {
			t.Errorf("bucket %d of %d holds %d, off by more than 1/64", i, v, mid)
		}
	}
}

func TestWriteText(t *testing.T) {
	rep := &Report{
		Script: ScriptMixed, Sockets: 2, EpisodesPerSocket: 3, Elapsed: 2, Started: 10, Ended: 9, Failed: 1, Steps: 30,
		EpisodesPerS: 4.5, StepsPerS: 15, InProcess: true, CPU: CPU{Counts: "client and server"},
		Latency:  map[string]Latency{keyReset: {Count: 10, P50: 1.25, P90: 2, P99: 3, Max: 4}},
		Errors:   map[string]int64{"-32003": 2, "closed": 1},
		Outcomes: map[string]int64{"mismatch": 8, "correct": 1},
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"10 started, 9 ended, 1 failed", "4.5/s", "15.0/s", "episode.reset", "1.25",
		"correct 1, mismatch 8", "-32003 2, closed 1", "tool errors  none", "client and server",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if rep.ErrorCount() != 3 {
		t.Errorf("ErrorCount = %d, want 3", rep.ErrorCount())
	}
}

// TestUncanceledErrors: calls an interrupt canceled do not count.
func TestUncanceledErrors(t *testing.T) {
	rep := &Report{Errors: map[string]int64{"canceled": 5, "closed": 1, "-32003": 2}}
	if n := rep.UncanceledErrors(); n != 3 {
		t.Errorf("UncanceledErrors = %d, want 3", n)
	}
	if n := (&Report{Errors: map[string]int64{"canceled": 5}}).UncanceledErrors(); n != 0 {
		t.Errorf("UncanceledErrors of canceled calls only = %d, want 0", n)
	}
}

// TestWriteJSONFile: the file holds the report as JSON, read back whole,
// one newline at its end.
func TestWriteJSONFile(t *testing.T) {
	rep := &Report{Script: ScriptGold, Started: 7, Steps: 21, Errors: map[string]int64{"closed": 1}}
	path := filepath.Join(t.TempDir(), "bench.json")
	if err := rep.WriteJSONFile(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || !strings.HasSuffix(string(b), "}\n") {
		t.Fatalf("%s: %v", b, err)
	}
	if back.Script != ScriptGold || back.Started != 7 || back.Steps != 21 || back.Errors["closed"] != 1 {
		t.Errorf("read back %+v, want the report written", back)
	}
	if err := rep.WriteJSONFile(filepath.Join(path, "below-a-file.json")); err == nil {
		t.Error("writing below a file succeeded")
	}
}

// TestReplyID reads the id of replies as the server writes them, of
// replies whose members come in another order, and refuses ids that are
// not the bench's.
func TestReplyID(t *testing.T) {
	tests := []struct {
		frame string
		id    int64
		ok    bool
	}{
		{`{"jsonrpc":"2.0","id":42,"result":{"terminated":true}}`, 42, true},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32003,"message":"full"}}`, 7, true},
		{`{"result":{},"id":9,"jsonrpc":"2.0"}`, 9, true},
		{`{"jsonrpc":"2.0","id":"x1","result":{}}`, 0, false},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, 0, false},
		{`not json`, 0, false},
	}
	for _, tt := range tests {
		if id, ok := replyID([]byte(tt.frame)); id != tt.id || ok != tt.ok {
			t.Errorf("replyID(%s) = %d, %v; want %d, %v", tt.frame, id, ok, tt.id, tt.ok)
		}
	}
}

// TestDecodeFrame reads a result or an error from a reply in one pass,
// and says when a frame cannot be read.
func TestDecodeFrame(t *testing.T) {
	var res schemas.StepResult
	rpcErr, ok := decodeStep([]byte(`{"jsonrpc":"2.0","id":1,"result":{"observation":{"role":"tool","content":"x"},"terminated":true,"info":{"outcome":"correct"}}}`), false, &res)
	if !ok || rpcErr != nil || !res.Terminated || res.Info.Outcome != "correct" || res.Observation.Content != "" {
		t.Errorf("slim step: %+v, %v, %v; want terminated, correct, the observation skipped", res, rpcErr, ok)
	}
	rpcErr, ok = decodeFrame([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"ended"}}`), &res)
	if !ok || rpcErr == nil || rpcErr.Code != -32002 {
		t.Errorf("error frame: %v, %v; want -32002", rpcErr, ok)
	}
	if _, ok := decodeFrame([]byte(`{"jsonrpc":"2.0","id":3,"result":{"terminated":"yes"}}`), &res); ok {
		t.Error("a result of the wrong shape was read")
	}
}
