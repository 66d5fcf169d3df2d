package episodes_test

import (
	"runtime"
	"testing"
)

// TestMetricsProcess checks that /metrics carries the process and Go
// collectors' metrics, which sqlgym bench reads for the server's CPU per
// step and its memory.
func TestMetricsProcess(t *testing.T) {
	h := newHarness(t, options{})
	m := h.metrics(t)
	if runtime.GOOS == "linux" {
		for _, name := range []string{"process_resident_memory_bytes", "process_start_time_seconds"} {
			if m[name] <= 0 {
				t.Errorf("/metrics: %s = %v, want a positive value", name, m[name])
			}
		}
		if _, ok := m["process_cpu_seconds_total"]; !ok {
			t.Error("/metrics lacks process_cpu_seconds_total")
		}
	}
	if m["go_goroutines"] < 1 {
		t.Errorf("/metrics: go_goroutines = %v, want at least 1", m["go_goroutines"])
	}
}
