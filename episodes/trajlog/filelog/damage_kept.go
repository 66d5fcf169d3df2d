package filelog

import (
	"context"
	"sync"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// DamageKeeper is the log as a trajlog.Reader that keeps the damage its
// last read found, for a command to report once it has read (DamageOf).
type DamageKeeper struct {
	*Log
	mu     sync.Mutex      // guards damage
	damage []SegmentDamage // found by the last read
}

// Episodes reads the log as Log.Episodes does, keeping the damage found.
func (k *DamageKeeper) Episodes(ctx context.Context, f trajlog.Filter, fn func(*trajlog.Record) error) error {
	st, err := k.Scan(ctx, f, fn)
	k.mu.Lock()
	k.damage = st.Damage
	k.mu.Unlock()
	return err
}

// Damage is the damage the last read found.
func (k *DamageKeeper) Damage() []SegmentDamage {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.damage
}

// DamageOf is the damage the last read of rd found, when rd is a
// DamageKeeper or wraps one (trajlog.Unwrapper); none for any other
// reader.
func DamageOf(rd trajlog.Reader) []SegmentDamage {
	for {
		switch r := rd.(type) {
		case *DamageKeeper:
			return r.Damage()
		case trajlog.Unwrapper:
			rd = r.Unwrap()
		default:
			return nil
		}
	}
}
