package main

import (
	"os"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// benchBinary is the sqlgym binary a process benchmark runs: the build
// the variable env names, to measure another version, or this tree's,
// built for the run.
func benchBinary(b *testing.B, env string) string {
	if bin := os.Getenv(env); bin != "" {
		return bin
	}
	return binserver.Build(b)
}
