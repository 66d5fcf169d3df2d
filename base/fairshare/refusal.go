package fairshare

import "fmt"

// Refusal is why Acquire found no room for a client.
type Refusal struct {
	Max     int // the pool's size, all held
	Held    int // what the client holds
	Clients int // the clients holding or asking, the client among them
	// OverShare: the client holds its fair share or more, so nothing is
	// reclaimed for it. None of OverShare, NoIdle, Even: reclaiming is off.
	OverShare bool
	// NoIdle: the client is below its share, but every item that could
	// be reclaimed for it has a request in flight.
	NoIdle bool
	// Even: the client is below its share, but no client holds two more
	// than it, so taking one from another would only trade places.
	Even bool
}

// Error says why, in terms a client can act on.
func (r *Refusal) Error() string { return r.Reason() }

// Reason is why the client is refused, after the bound's own words.
func (r *Refusal) Reason() string {
	if r.NoIdle {
		return fmt.Sprintf("this client holds %d of the %d, below its fair share (%d / %d clients), "+
			"but every one that could be reclaimed for it is in use", r.Held, r.Max, r.Max, r.Clients)
	}
	if r.Even {
		return fmt.Sprintf("this client holds %d of the %d, and no other holds enough more to give one up "+
			"(fair share: %d / %d clients)", r.Held, r.Max, r.Max, r.Clients)
	}
	if r.OverShare {
		return fmt.Sprintf("this client holds %d of the %d, at or above its fair share (%d / %d clients)",
			r.Held, r.Max, r.Max, r.Clients)
	}
	return fmt.Sprintf("this client holds %d of the %d; nothing is reclaimed for it (reclaiming is off)", r.Held, r.Max)
}
