package trajlog

import "fmt"

// Durability is what a store promises once End has returned: the
// episode survives the process being killed in every mode; the modes
// differ in what survives the machine losing power. docs/trajectories.md
// states each promise.
type Durability int

const (
	// DurabilityEpisode: End returns once the episode's end line, and
	// every line written before it, is fsynced (group commit). The zero
	// value.
	DurabilityEpisode Durability = iota
	// DurabilityInterval: End returns once its line is with the operating
	// system; the log is fsynced every SyncInterval, so an operating
	// system crash or power loss loses at most the episodes ended within
	// the last interval (and the fsync running when it struck).
	DurabilityInterval
	// DurabilityNone: End returns once its line is with the operating
	// system; the log is fsynced only when a segment is sealed and at
	// Close, so an operating system crash or power loss may lose
	// everything written since the last seal.
	DurabilityNone
)

var durabilityNames = [...]string{
	DurabilityEpisode:  "episode",
	DurabilityInterval: "interval",
	DurabilityNone:     "none",
}

// String returns the mode's name: episode, interval or none.
func (d Durability) String() string {
	if d < 0 || int(d) >= len(durabilityNames) {
		return fmt.Sprintf("Durability(%d)", int(d))
	}
	return durabilityNames[d]
}

// ParseDurability reads a mode's name.
func ParseDurability(s string) (Durability, error) {
	for d, name := range durabilityNames {
		if s == name {
			return Durability(d), nil
		}
	}
	return 0, fmt.Errorf("durability must be episode, interval or none, got %q", s)
}

// MarshalText returns the mode's name.
func (d Durability) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a mode's name, so that a Durability can be a flag
// (flag.TextVar) or a JSON string.
func (d *Durability) UnmarshalText(b []byte) error {
	v, err := ParseDurability(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
