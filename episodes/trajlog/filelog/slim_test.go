package filelog

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// headerFields are the JSON names of the Trajectory fields set at reset
// and never changed: the begin line holds them, a slim end leaves them
// out.
var headerFields = []string{"episode_id", "task", "tags", "reward_spec", "reward_spec_hash", "action_format",
	"tools", "max_turns", "prompt_style", "max_calls_per_turn", "messages", "started_at", "server_version"}

// jsonFields are a struct type's fields by JSON name, and the names in
// order.
func jsonFields(t reflect.Type) (map[string]reflect.StructField, []string) {
	byName := map[string]reflect.StructField{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		byName[name] = f
		names = append(names, name)
	}
	return byName, names
}

// TestTrajectoryFieldsAreHeaderOrEnd: every field of a trajectory is
// either header (kept from the begin line) or set at the end (in the slim
// end line, with the Trajectory's type and tag), steps aside. A field
// added to Trajectory must be placed.
func TestTrajectoryFieldsAreHeaderOrEnd(t *testing.T) {
	ends, _ := jsonFields(reflect.TypeFor[endFields]())
	traj, names := jsonFields(reflect.TypeFor[schemas.Trajectory]())
	for _, name := range names {
		_, end := ends[name]
		if header := slices.Contains(headerFields, name); name != "steps" && header == end {
			t.Errorf("trajectory field %q: header %v, end %v; it must be one of them", name, header, end)
		}
	}
	for name, e := range ends {
		if f, ok := traj[name]; !ok || f.Name != e.Name || f.Type != e.Type || f.Tag != e.Tag {
			t.Errorf("end field %s %v %q is not the Trajectory's (%s %v %q)", e.Name, e.Type, e.Tag, f.Name, f.Type, f.Tag)
		}
	}
}

// full is a trajectory with every field set, the end's included.
func full(i int) *schemas.Trajectory {
	tr := episode(i)
	tr.Tools = []string{"execute_sql", "submit"}
	tr.MaxCallsPerTurn, tr.PromptStyle = 2, schemas.PromptStyleNative
	tr.Steps = []schemas.StepRecord{stepOf(1), stepOf(2)}
	end := tr.StartedAt.Add(time.Minute)
	tr.EndedAt, tr.Outcome, tr.FinalReward, tr.TotalReward = &end, "correct", 1, 0.97
	tr.CloseComponents = map[string]float64{"final.correct": 1}
	return tr
}

// sameFields fails the test for each field of the trajectories that
// differs, naming it.
func sameFields(t *testing.T, what string, got, want *schemas.Trajectory) {
	t.Helper()
	g, w := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	for i := range g.NumField() {
		gj, _ := json.Marshal(g.Field(i).Interface())
		wj, _ := json.Marshal(w.Field(i).Interface())
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: %s is %s, want %s", what, g.Type().Field(i).Name, gj, wj)
		}
	}
}

// endLines returns the end lines of a log's segments, decoded as maps.
func endLines(t *testing.T, dir string) []map[string]json.RawMessage {
	t.Helper()
	var out []map[string]json.RawMessage
	for _, path := range segmentFiles(t, dir, "traj-*.log") {
		b, _ := os.ReadFile(path)
		for line := range bytes.Lines(b) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if ev := string(m["ev"]); ev == `"end"` || ev == `"done"` {
				out = append(out, m)
			}
		}
	}
	return out
}

// TestSlimEndRoundTrip writes episodes whose every field is set, with
// and without steps: each end line is slim (the end's fields only), and
// each episode reads back field by field as it was written.
func TestSlimEndRoundTrip(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{NoSync: true})
	ctx := context.Background()
	var want []*schemas.Trajectory
	for i, n := range []int{2, 0, 1} {
		tr := full(i)
		tr.Steps = tr.Steps[:n]
		b := episode(i)
		b.Tools, b.MaxCallsPerTurn, b.PromptStyle = tr.Tools, tr.MaxCallsPerTurn, tr.PromptStyle
		if err := l.Begin(ctx, b); err != nil {
			t.Fatal(err)
		}
		for k := range tr.Steps {
			if err := l.Step(ctx, tr.EpisodeID, &tr.Steps[k]); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.End(ctx, tr); err != nil {
			t.Fatal(err)
		}
		want = append(want, tr)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, m := range endLines(t, dir) {
		var traj map[string]json.RawMessage
		json.Unmarshal(m["traj"], &traj)
		if string(m["ev"]) != `"done"` || len(traj) != 5 || traj["messages"] != nil || traj["steps"] != nil {
			t.Errorf("end line %s %s: want a done line, with the 5 end fields only", m["ev"], m["traj"])
		}
	}
	got, order, st := readAll(t, l, trajlog.Filter{Incomplete: true})
	if len(order) != len(want) || st.Complete != int64(len(want)) || st.Orphans != 0 {
		t.Fatalf("read %v (stats %+v), want %d complete episodes", order, st, len(want))
	}
	for _, w := range want {
		g := got[w.EpisodeID]
		if g == nil || !g.Complete {
			t.Fatalf("%s read back as %+v", w.EpisodeID, g)
		}
		sameFields(t, w.EpisodeID, &g.Trajectory, w)
	}
}

// TestEndAfterAFailedStepStandsAlone: when a step line was not written,
// the end line is whole (header and every step), not slim.
func TestEndAfterAFailedStepStandsAlone(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{NoSync: true})
	ctx := context.Background()
	tr := full(1)
	if err := l.Begin(ctx, episode(1)); err != nil {
		t.Fatal(err)
	}
	if err := l.Step(ctx, tr.EpisodeID, &tr.Steps[0]); err != nil {
		t.Fatal(err)
	} // the second step's line was never written
	tr.Tools = nil
	if err := l.End(ctx, tr); err != nil {
		t.Fatal(err)
	}
	l.Close()
	ends := endLines(t, dir)
	if len(ends) != 1 || string(ends[0]["ev"]) != `"end"` || !bytes.Contains(ends[0]["traj"], []byte(`"messages":`)) {
		t.Fatalf("end lines %v, want one whole end", ends)
	}
	got, _, _ := readAll(t, l, trajlog.Filter{})
	if g := got[tr.EpisodeID]; g == nil || !g.Complete {
		t.Fatalf("read %+v, want the episode complete", got)
	} else {
		sameFields(t, tr.EpisodeID, &g.Trajectory, tr)
	}
}

// TestDoneLinesCarryNoSteps: a done line that carries steps, and one
// without a record, are malformed lines, to the full and the light
// reader.
func TestDoneLinesCarryNoSteps(t *testing.T) {
	dir := t.TempDir()
	var seg []byte
	for _, ev := range []*event{{Ev: evOpen}, {Ev: evDone, Ep: "ep_1", Traj: full(1), Turns: 2},
		{Ev: evDone, Ep: "ep_2", Turns: 1}} {
		line, err := encodeLine(ev)
		if err != nil {
			t.Fatal(err)
		}
		seg = append(seg, line...)
	}
	if err := os.WriteFile(segmentPath(dir, 1), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir, Options{ReadOnly: true})
	got, _, st := readAll(t, r, trajlog.Filter{Incomplete: true})
	if len(got) != 0 || st.Damaged != 2 || len(st.Damage) != 1 || !strings.Contains(st.Damage[0].Reason, "malformed") {
		t.Errorf("read %v, stats %+v; want both lines damaged as malformed", got, st)
	}
	rep, err := r.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ds := rep.Damage(); len(ds) != 1 || ds[0].Lines != 2 || !strings.Contains(ds[0].Reason, "malformed") {
		t.Errorf("verify: %+v; want 2 malformed lines", ds)
	}
}
