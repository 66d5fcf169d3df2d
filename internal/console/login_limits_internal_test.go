package console

import "testing"

// TestClientKey: an IPv4 address is a client, an IPv6 host by its /64
// (one host is given a whole /64), an IPv4-mapped IPv6 address the IPv4
// one, and an address that does not parse one client of its own.
func TestClientKey(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"192.0.2.1:5000", "192.0.2.1:6000", true},
		{"192.0.2.1:5000", "192.0.2.2:5000", false},
		{"[2001:db8::1]:80", "[2001:db8::ffff:1]:80", true},
		{"[2001:db8::1]:80", "[2001:db8:0:1::1]:80", false},
		{"[::ffff:192.0.2.1]:80", "192.0.2.1:80", true},
		{"garbage", "other garbage", true},
		{"garbage", "192.0.2.1:80", false},
	} {
		if got := clientKey(c.a) == clientKey(c.b); got != c.same {
			t.Errorf("%s and %s: same client %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
