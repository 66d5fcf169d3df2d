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

// TestConversationBoundsUsage: rollout's --max-reply-calls below 1 or
// --max-conversation-bytes below 64 KiB is a usage error naming both.
func TestConversationBoundsUsage(t *testing.T) {
	for _, args := range [][]string{{"--max-reply-calls", "0"}, {"--max-conversation-bytes", "1000"}} {
		_, err := parseRolloutFlags(append([]string{"--model-url", "http://127.0.0.1:1/v1", "--model", "m"}, args...), &strings.Builder{})
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--max-reply-calls") ||
			!strings.Contains(err.Error(), "--max-conversation-bytes") {
			t.Errorf("rollout %v: %v, want a usage error naming --max-reply-calls and --max-conversation-bytes", args, err)
		}
	}
}
