package fairshare

import (
	"errors"
	"testing"
	"time"
)

// item is a pool item that is idle unless busy, and releases its ticket
// when reclaimed.
type item struct {
	t        *Ticket
	used     time.Time
	busy     bool
	reclaims int
}

func (i *item) LastUsed() time.Time { return i.used }
func (i *item) Reclaim() bool {
	if i.busy {
		return false
	}
	i.reclaims++
	i.t.Release()
	return true
}

func hold(t *testing.T, p *Pool, client string, used time.Time) *item {
	t.Helper()
	tk, err := p.Acquire(client)
	if err != nil {
		t.Fatalf("acquire for %s: %v", client, err)
	}
	it := &item{t: tk, used: used}
	tk.Hold(it)
	return it
}

func TestOneClientMayHoldTheWholePool(t *testing.T) {
	p := New(4, true)
	for range 4 {
		hold(t, p, "a", time.Unix(0, 0))
	}
	_, err := p.Acquire("a")
	var ref *Refusal
	if !errors.As(err, &ref) || !ref.OverShare || ref.Held != 4 {
		t.Fatalf("the holder of the whole pool asking for more: %v, want a refusal over its share", err)
	}
}

func TestBelowShareReclaimsTheLargestHoldersLeastRecentlyUsed(t *testing.T) {
	p := New(4, true)
	var a []*item
	for i := range 4 {
		a = append(a, hold(t, p, "a", time.Unix(int64(10-i), 0)))
	}
	hold(t, p, "b", time.Unix(0, 0))
	if a[3].reclaims != 1 || p.HeldBy("a") != 3 || p.HeldBy("b") != 1 || p.Reclaimed() != 1 {
		t.Fatalf("reclaims %d %d %d %d, held a=%d b=%d; want a's least recently used (the last) reclaimed",
			a[0].reclaims, a[1].reclaims, a[2].reclaims, a[3].reclaims, p.HeldBy("a"), p.HeldBy("b"))
	}
	hold(t, p, "b", time.Unix(0, 0)) // 3-1: b below its share of 2 takes another
	if _, err := p.Acquire("b"); err == nil {
		t.Fatal("b at its share (2 of 4, 2 clients) took a third room")
	}
	if _, err := p.Acquire("a"); err == nil {
		t.Fatal("a at its share (2 of 4) took a room back")
	}
}

func TestBusyItemsAreNotReclaimed(t *testing.T) {
	p := New(2, true)
	hold(t, p, "a", time.Unix(0, 0)).busy = true
	hold(t, p, "a", time.Unix(0, 0)).busy = true
	_, err := p.Acquire("b")
	var ref *Refusal
	if !errors.As(err, &ref) || !ref.NoIdle {
		t.Fatalf("every item busy: %v, want a refusal saying none is idle", err)
	}
}

func TestNoReclaimThatWouldMakeTheVictimPoorer(t *testing.T) {
	p := New(4, true)
	hold(t, p, "a", time.Unix(0, 0))
	hold(t, p, "a", time.Unix(0, 0))
	hold(t, p, "b", time.Unix(0, 0))
	hold(t, p, "c", time.Unix(0, 0))
	if _, err := p.Acquire("b"); err == nil {
		t.Fatal("b (1 of 4, three clients) took a room from a, which held 2: a would then hold less than b")
	}
}

func TestReclaimingOffRefusesAtTheBound(t *testing.T) {
	p := New(1, false)
	hold(t, p, "a", time.Unix(0, 0))
	if _, err := p.Acquire("b"); err == nil || p.Reclaimed() != 0 {
		t.Fatalf("reclaiming off: %v, %d reclaimed", err, p.Reclaimed())
	}
}

func TestReleaseTwiceGivesBackOnce(t *testing.T) {
	p := New(2, true)
	tk, _ := p.Acquire("a")
	p.Acquire("a")
	tk.Release()
	tk.Release()
	if p.Held() != 1 {
		t.Fatalf("held %d after one of two released twice, want 1", p.Held())
	}
}

// TestClientOfAddr: an IPv4 address is a client, an IPv6 host by its
// /64 (one host is given a whole /64), an IPv4-mapped IPv6 address the
// IPv4 one, and every address that does not parse one client.
func TestClientOfAddr(t *testing.T) {
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
		if got := ClientOfAddr(c.a) == ClientOfAddr(c.b); got != c.same {
			t.Errorf("%s and %s: same client %v, want %v", c.a, c.b, got, c.same)
		}
	}
	if got := ClientOfAddr("127.0.0.2:5555"); got != "127.0.0.2" {
		t.Errorf("ClientOfAddr(127.0.0.2:5555) = %q, want the address without its port", got)
	}
}

// racer is an item whose reclaim lets another client ask at once, as a
// flooder's concurrent request could.
type racer struct {
	item
	p   *Pool
	got error
}

func (r *racer) Reclaim() bool {
	ok := r.item.Reclaim()
	_, r.got = r.p.Acquire("a") // the room just freed, asked for by its former holder
	return ok
}

// TestTheReclaimedRoomIsTheAskers: the room a reclaim frees goes to the
// client it was reclaimed for, not to whoever asks in between.
func TestTheReclaimedRoomIsTheAskers(t *testing.T) {
	p := New(2, true)
	var rs []*racer
	for range 2 {
		tk, err := p.Acquire("a")
		if err != nil {
			t.Fatal(err)
		}
		r := &racer{item: item{t: tk}, p: p}
		tk.Hold(r)
		rs = append(rs, r)
	}
	if _, err := p.Acquire("b"); err != nil {
		t.Fatalf("b below its share: %v", err)
	}
	var got error
	for _, r := range rs {
		if r.reclaims == 1 {
			got = r.got
		}
	}
	if got == nil || p.HeldBy("a") != 1 || p.HeldBy("b") != 1 || p.Held() != 2 {
		t.Fatalf("a asking during the reclaim: %v; held a=%d b=%d total %d, want a refused and 1+1", got, p.HeldBy("a"), p.HeldBy("b"), p.Held())
	}
}
