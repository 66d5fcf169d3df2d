package main

import (
	"io"
	"os"
	"sync"
)

// sharedWriter is w made safe for the goroutines of one command that
// write to it at once: the logger's background work (the trajectory
// log's verification, say) beside the command's own lines. An *os.File
// already is, and stays itself, so that terminal checks still see it;
// any other writer (a test's buffer) gets a mutex.
func sharedWriter(w io.Writer) io.Writer {
	if _, ok := w.(*os.File); ok {
		return w
	}
	return &lockedWriter{w: w}
}

// lockedWriter serializes the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
