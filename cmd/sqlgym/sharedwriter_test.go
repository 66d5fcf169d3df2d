package main

import (
	"os"
	"strings"
	"sync"
	"testing"
)

// TestSharedWriter: writes from several goroutines to a plain writer are
// serialized whole (the race detector checks the builder), and a file
// stays itself so terminal checks still see it.
func TestSharedWriter(t *testing.T) {
	var b strings.Builder
	w := sharedWriter(&b)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				w.Write([]byte("line\n"))
			}
		})
	}
	wg.Wait()
	if got := strings.Count(b.String(), "line\n"); got != 800 || b.Len() != 800*5 {
		t.Errorf("%d whole lines in %d bytes, want 800 in 4000", got, b.Len())
	}
	if sharedWriter(os.Stderr) != os.Stderr {
		t.Error("os.Stderr was wrapped: terminal checks would no longer see the file")
	}
}
