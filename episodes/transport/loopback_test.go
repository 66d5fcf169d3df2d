package transport_test

import (
	"testing"

	"github.com/sqlgym/sqlgym/episodes/transport"
)

// TestLoopbackAddr: loopback addresses and localhost in any case listen
// on the loopback interface only; every interface, another address or
// name, and what does not parse do not.
func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8765": true, "127.8.9.10:0": true, "[::1]:0": true, "[::1%lo]:0": true,
		"localhost:8765": true, "LocalHost:8765": true, "[::ffff:127.0.0.1]:0": true,
		"0.0.0.0:8765": false, ":8765": false, "[::]:8765": false, "10.1.2.3:8765": false,
		"myhost:8765": false, "not an address": false, "127.0.0.1": false,
	} {
		if got := transport.LoopbackAddr(addr); got != want {
			t.Errorf("LoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}
