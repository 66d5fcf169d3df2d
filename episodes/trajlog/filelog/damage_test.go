package filelog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// interleaved writes n episodes of 3 steps through l, up to five live at
// once: at tick k, episode k begins and episodes k-1 to k-3 take a step,
// episode k-4 ends. It returns the records as they read back.
func interleaved(t *testing.T, l *Log, n int) map[string]*trajlog.Record {
	t.Helper()
	ctx := context.Background()
	trs := make([]*trajlog.Record, n)
	for tick := 0; tick < n+4; tick++ {
		for i := min(tick, n-1); i >= max(0, tick-4); i-- {
			var err error
			switch k := tick - i; {
			case k == 0:
				trs[i] = &trajlog.Record{Trajectory: *episode(i), Complete: true}
				err = l.Begin(ctx, &trs[i].Trajectory)
			case k < 4:
				s := stepOf(k)
				tr := &trs[i].Trajectory
				tr.Steps = append(tr.Steps, s)
				tr.TotalReward += s.Reward
				err = l.Step(ctx, tr.EpisodeID, &s)
			default:
				tr := &trs[i].Trajectory
				end := tr.StartedAt.Add(time.Minute)
				tr.EndedAt, tr.Outcome = &end, "mismatch"
				err = l.End(ctx, tr)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]*trajlog.Record{}
	for _, r := range trs {
		want[r.EpisodeID] = r
	}
	return want
}

// lineAt is a line of a segment as written: [start, end) holds its
// newline.
type lineAt struct {
	start, end int64
	ev, ep     string
}

func linesOf(t *testing.T, path string) []lineAt {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []lineAt
	for off := int64(0); off < int64(len(b)); {
		n := int64(bytes.IndexByte(b[off:], '\n'))
		var m struct{ Ev, Ep string }
		if n < 0 || json.Unmarshal(b[off:off+n], &m) != nil {
			t.Fatalf("%s: a bad line at %d before any damage", path, off)
		}
		out = append(out, lineAt{off, off + n + 1, m.Ev, m.Ep})
		off += n + 1
	}
	return out
}

// harm damages one segment and returns the damaged bytes [from, to).
type harm func(t *testing.T, path string, lines []lineAt) (int64, int64)

// flipIn flips three bytes in the middle of the first line of kind ev
// past the segment's first quarter.
func flipIn(ev string) harm {
	return func(t *testing.T, path string, lines []lineAt) (int64, int64) {
		size := lines[len(lines)-1].end
		i := slices.IndexFunc(lines, func(l lineAt) bool { return l.ev == ev && l.start > size/4 })
		if i < 0 {
			t.Fatalf("no %s line in %s", ev, path)
		}
		b, _ := os.ReadFile(path)
		at := (lines[i].start + lines[i].end) / 2
		for k := at; k < at+3; k++ {
			b[k] ^= 0xff
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return at, at + 3
	}
}

func cutToHalf(t *testing.T, path string, lines []lineAt) (int64, int64) {
	size := lines[len(lines)-1].end
	if err := os.Truncate(path, size/2); err != nil {
		t.Fatal(err)
	}
	return size / 2, size
}

func nulsInThird(t *testing.T, path string, lines []lineAt) (int64, int64) {
	size := lines[len(lines)-1].end
	overwrite(t, path, size/3, make([]byte, 4096))
	return size / 3, size/3 + 4096
}

// wanted is the damage a harm should be reported as.
type wanted struct {
	lines   int
	touched map[string]bool
}

// damageLog writes interleaved episodes over 8 KiB segments, closes the
// log, and harms the segments given; it returns the records written and
// the damage each harmed segment should show.
func damageLog(t *testing.T, dir string, harms map[int]harm) (map[string]*trajlog.Record, map[string]wanted) {
	t.Helper()
	l := mustOpen(t, dir, Options{SegmentBytes: 8 << 10, NoSync: true})
	want := interleaved(t, l, 60)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	damage := map[string]wanted{}
	for n, h := range harms {
		path := segmentPath(dir, n)
		lines := linesOf(t, path)
		from, to := h(t, path, lines)
		w := wanted{touched: map[string]bool{}}
		for _, l := range lines {
			if l.start < to && l.end > from {
				w.lines++
				if l.ep != "" {
					w.touched[l.ep] = true
				}
			}
		}
		damage[segmentName(n)] = w
	}
	return want, damage
}

// checkDamage holds what a read or a verification found to the harm:
// each harmed segment reported with the lines it lost, naming only
// episodes that lost a line there; every episode that lost a line named
// (an episode harmed twice under one of the segments, or both when both
// damaged lines show its id) or counted as unidentified.
func checkDamage(t *testing.T, what string, got []SegmentDamage, want map[string]wanted) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: damage in %d segments, want %d: %+v", what, len(got), len(want), got)
	}
	named, unidentified, touched := map[string]bool{}, 0, map[string]bool{}
	for _, w := range want {
		maps.Copy(touched, w.touched)
	}
	for _, d := range got {
		w, ok := want[d.Segment]
		if !ok {
			t.Errorf("%s: %s reported damaged: %+v", what, d.Segment, d)
			continue
		}
		if d.Lines != int64(w.lines) || d.Uncounted {
			t.Errorf("%s: %s: %d lines (uncounted %v), want %d", what, d.Segment, d.Lines, d.Uncounted, w.lines)
		}
		for _, ep := range d.Episodes {
			if !w.touched[ep] {
				t.Errorf("%s: %s names %s, which lost no line there", what, d.Segment, ep)
			}
			named[ep] = true
		}
		unidentified += d.Unidentified
	}
	if len(named)+unidentified != len(touched) {
		t.Errorf("%s: %d episodes named and %d unidentified, want %d touched: %+v", what, len(named), unidentified, len(touched), got)
	}
}

// TestDamageIsReported harms sealed segments each way damage comes, and
// checks that a read reports each damaged segment with its lines and
// the episodes they held, reads every other episode whole, and that
// Verify finds the same.
func TestDamageIsReported(t *testing.T) {
	tests := []struct {
		name  string
		harms map[int]harm
	}{
		{"bytes flipped in a begin line", map[int]harm{3: flipIn(evBegin)}},
		{"bytes flipped in a step line", map[int]harm{3: flipIn(evStep)}},
		{"bytes flipped in an end line", map[int]harm{3: flipIn(evDone)}},
		{"cut to half", map[int]harm{4: cutToHalf}},
		{"4 KiB of NULs", map[int]harm{5: nulsInThird}},
		{"all three", map[int]harm{2: flipIn(evStep), 5: cutToHalf, 8: nulsInThird}},
		{"all three, side by side", map[int]harm{3: nulsInThird, 4: flipIn(evBegin), 5: cutToHalf}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			want, damage := damageLog(t, dir, tt.harms)
			r := mustOpen(t, dir, Options{ReadOnly: true})
			got, _, st := readAll(t, r, trajlog.Filter{Incomplete: true})
			checkDamage(t, "scan", st.Damage, damage)
			for id, w := range want {
				touched := false
				for _, d := range damage {
					touched = touched || d.touched[id]
				}
				switch g := got[id]; {
				case !touched:
					sameJSON(t, id, g, w)
				case g != nil && g.Complete:
					t.Errorf("%s lost a line but reads complete", id)
				}
			}
			rep, err := r.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			checkDamage(t, "verify", rep.Damage(), damage)
			if rep.Clean() || rep.IndexFaults() != 0 || rep.Episodes != st.Complete+st.Incomplete {
				t.Errorf("verify: clean %v, %d index faults, %d episodes; want damage, no fault, %d episodes",
					rep.Clean(), rep.IndexFaults(), rep.Episodes, st.Complete+st.Incomplete)
			}
		})
	}
}

// TestTornTailIsNotDamage: a torn last line of the segment being written
// (or left by a crash) is counted apart, not reported as damage.
func TestTornTailIsNotDamage(t *testing.T) {
	dir := t.TempDir()
	crashedLog(t, dir)
	half, _ := encodeLine(&event{Ev: evStep, Ep: "ep_00009", Step: new(stepOf(4))})
	appendBytes(t, segmentPath(dir, 1), half[:len(half)/2])
	r := mustOpen(t, dir, Options{ReadOnly: true})
	_, _, st := readAll(t, r, trajlog.Filter{Incomplete: true})
	if st.TornTail != 1 || len(st.Damage) != 0 || st.Damaged != 1 {
		t.Errorf("stats %+v, want the torn tail counted apart", st)
	}
	rep, err := r.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Clean() || len(rep.Segments) != 1 || !rep.Segments[0].TornTail || !rep.Segments[0].NoIndex {
		t.Errorf("verify: %+v, want clean with a torn tail and no index", rep.Segments)
	}
}

// TestRecoveredDamageIsUncounted: recovery indexes a crashed segment with
// a damaged line in it; the index cannot count what that line held, and
// a read says so.
func TestRecoveredDamageIsUncounted(t *testing.T) {
	dir := t.TempDir()
	crashedLog(t, dir)
	path := segmentPath(dir, 1)
	lines := linesOf(t, path)
	flipIn(evStep)(t, path, lines)
	mustOpen(t, dir, Options{NoSync: true}).Close()
	x, _ := readIndex(dir, 1)
	_, _, st := readAll(t, mustOpen(t, dir, Options{ReadOnly: true}), trajlog.Filter{Incomplete: true})
	if x.Damaged != 1 || len(st.Damage) != 1 || !st.Damage[0].Uncounted || st.Damage[0].Lines != 1 {
		t.Errorf("index damaged %d, read damage %+v; want 1 line, uncounted", x.Damaged, st.Damage)
	}
	if !strings.Contains(st.Damage[0].String(), "perhaps others") {
		t.Errorf("report %q does not say more episodes may be touched", st.Damage[0].String())
	}
}

// TestDamageNearby harms two segments one or two apart, every pair of
// ways, with episodes spanning them: each episode that lost a line is
// laid to a segment where it lost one.
func TestDamageNearby(t *testing.T) {
	harms := map[string]harm{"flipped begin": flipIn(evBegin), "flipped step": flipIn(evStep),
		"flipped end": flipIn(evDone), "cut": cutToHalf, "NULs": nulsInThird}
	for a, ha := range harms {
		for b, hb := range harms {
			for gap := 1; gap <= 2; gap++ {
				t.Run(fmt.Sprintf("%s, then %s %d later", a, b, gap), func(t *testing.T) {
					dir := t.TempDir()
					_, damage := damageLog(t, dir, map[int]harm{3: ha, 3 + gap: hb})
					_, _, st := readAll(t, mustOpen(t, dir, Options{ReadOnly: true}), trajlog.Filter{Incomplete: true})
					checkDamage(t, "scan", st.Damage, damage)
				})
			}
		}
	}
}

// TestBeginLostInAnEarlierSegment: an episode loses its begin to damage
// no id survives, and a step to damage that shows its id in the next
// segment. Each segment names it once, for the line it lost there, and
// neither counts it again as unknown.
func TestBeginLostInAnEarlierSegment(t *testing.T) {
	dir := t.TempDir()
	a, b := beginLastOfSegment(t, dir, 2)
	first, second := segmentPath(dir, 1), segmentPath(dir, 2)
	begin := lineOf(t, first, evBegin, b.EpisodeID)
	overwrite(t, first, begin.start, make([]byte, begin.end-begin.start-1))
	step := linesOf(t, second)[0]
	overwrite(t, second, (step.start+step.end)/2, []byte{0xff, 0xfe, 0xfd})

	r := mustOpen(t, dir, Options{ReadOnly: true})
	got, _, st := readAll(t, r, trajlog.Filter{Incomplete: true})
	sameJSON(t, a.EpisodeID, got[a.EpisodeID], &trajlog.Record{Trajectory: *a, Complete: true})
	rep, err := r.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for what, ds := range map[string][]SegmentDamage{"scan": st.Damage, "verify": rep.Damage()} {
		if len(ds) != 2 || got[b.EpisodeID] != nil {
			t.Fatalf("%s: damage %+v, read %v; want 2 damaged segments and %s not read", what, ds, got, b.EpisodeID)
		}
		for _, d := range ds {
			if !slices.Equal(d.Episodes, []string{b.EpisodeID}) || d.Unidentified != 0 {
				t.Errorf("%s: %s names %v and %d unknown, want %s alone", what, d.Segment, d.Episodes, d.Unidentified, b.EpisodeID)
			}
		}
	}
}
