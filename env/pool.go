package env

import "time"

// PoolStats are the connection statistics of an engine, summed over the
// databases it opened. Waits and WaitTime only grow, databases since
// closed included; InUse and Open are now.
type PoolStats struct {
	// Waits counts statements that had to wait before they could run:
	// for a free connection to their database, or for a slot among the
	// statements the engine runs at once.
	Waits int64
	// WaitTime is the time those statements waited, added up.
	WaitTime time.Duration
	// InUse is how many connections are running a statement now (or
	// holding one for a statement waiting for a slot).
	InUse int
	// Open is how many connections are open, in use or idle.
	Open int
	// Prepared counts the statements the engine prepared, and Reused
	// those it ran again from a connection's prepared statements
	// without preparing them anew.
	Prepared, Reused int64
}

// Add returns the sum of s and o.
func (s PoolStats) Add(o PoolStats) PoolStats {
	return PoolStats{Waits: s.Waits + o.Waits, WaitTime: s.WaitTime + o.WaitTime,
		InUse: s.InUse + o.InUse, Open: s.Open + o.Open,
		Prepared: s.Prepared + o.Prepared, Reused: s.Reused + o.Reused}
}

// PoolReporter is an Engine that reports its connection statistics.
type PoolReporter interface {
	PoolStats() PoolStats
}

// PoolStats sums the statistics of the catalog's engines that report them.
func (c *Catalog) PoolStats() PoolStats {
	var sum PoolStats
	for _, e := range c.engines {
		if r, ok := e.(PoolReporter); ok {
			sum = sum.Add(r.PoolStats())
		}
	}
	return sum
}
