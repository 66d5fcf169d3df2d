package main

import (
	"errors"
	"strings"
	"testing"
)

// TestEpisodeBytesUsage: --max-episode-bytes below 64 KiB, or above
// --max-live-bytes, is a usage error naming both, before anything starts.
func TestEpisodeBytesUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--max-episode-bytes", "1000"},
		{"--max-episode-bytes", "2097152", "--max-live-bytes", "1048576"},
	} {
		_, _, err := sqlgym(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--max-episode-bytes") ||
			!strings.Contains(err.Error(), "--max-live-bytes") {
			t.Errorf("serve %v: %v, want a usage error naming --max-episode-bytes and --max-live-bytes", args, err)
		}
	}
}
