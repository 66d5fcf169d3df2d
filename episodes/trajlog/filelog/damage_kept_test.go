package filelog

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// TestDamageKeeper: a read through a DamageKeeper keeps the damage it
// found, and DamageOf finds it through a reader that narrows it to some
// tasks; the plain log keeps none.
func TestDamageKeeper(t *testing.T) {
	dir := t.TempDir()
	_, damage := damageLog(t, dir, map[int]harm{3: flipIn(evStep)})
	l := mustOpen(t, dir, Options{ReadOnly: true})
	k := &DamageKeeper{Log: l}
	if DamageOf(k) != nil {
		t.Fatal("damage before any read")
	}
	rd := trajlog.OnlyTasks(k, []string{"demo/0", "spider-dev/1"})
	read := map[string]bool{}
	err := rd.Episodes(context.Background(), trajlog.Filter{Incomplete: true}, func(r *trajlog.Record) error {
		read[r.Task.TaskID] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != 2 || !read["demo/0"] || !read["spider-dev/1"] {
		t.Errorf("read the tasks %v, want demo/0 and spider-dev/1 alone", read)
	}
	checkDamage(t, "kept", DamageOf(rd), damage)
	if DamageOf(l) != nil {
		t.Error("the plain log keeps damage")
	}
}
