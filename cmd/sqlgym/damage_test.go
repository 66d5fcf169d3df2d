package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// damagedLog is a log recorded through the real server in four sessions,
// one sealed segment each, three of which were then damaged: bytes
// flipped in a line of the first, the second cut to half its size, 4 KB
// of the third overwritten with NULs. The fourth is intact.
type damagedLog struct {
	dir     string
	lines   map[string]int             // segment -> lines damaged or lost
	touched map[string]map[string]bool // segment -> episodes that lost a line
	intact  []string                   // episodes no damage touched, sorted
	flipped string                     // the episode whose line had bytes flipped
}

// damaged segments, in order; traj-000004.log is intact.
var damagedSegments = []string{"traj-000001.log", "traj-000002.log", "traj-000003.log"}

// segLine is a line of a segment as written: [start, end) holds its
// newline.
type segLine struct {
	start, end int64
	ev, ep     string
}

// recordSessions records perSession demo episodes in each of sessions
// server runs on dir: a sealed segment each.
func recordSessions(t *testing.T, dir string, sessions, perSession int) {
	t.Helper()
	for range sessions {
		serveAndDrive(t, []string{"--data-dir", dir}, playDemo(t, perSession))
	}
}

func newDamagedLog(t *testing.T) *damagedLog {
	t.Helper()
	dir := t.TempDir()
	recordSessions(t, dir, 4, 12)
	d := &damagedLog{dir: dir, lines: map[string]int{}, touched: map[string]map[string]bool{}}
	all := map[string]bool{}
	ranges := map[string][2]int64{} // segment -> damaged bytes [from, to)
	for n := 1; n <= 4; n++ {
		name := fmt.Sprintf("traj-%06d.log", n)
		path := filepath.Join(dir, "trajectories", name)
		lines := segmentLines(t, path)
		size := lines[len(lines)-1].end
		for _, l := range lines {
			if l.ep != "" {
				all[l.ep] = true
			}
		}
		switch n {
		case 1: // three bytes flipped three quarters into a step line past the middle
			i := slices.IndexFunc(lines, func(l segLine) bool { return l.ev == "step" && l.start >= size/2 })
			l := lines[i]
			at := l.start + 3*(l.end-l.start)/4
			flipBytes(t, path, at, 3)
			ranges[name], d.flipped = [2]int64{at, at + 3}, l.ep
		case 2: // cut to half
			if err := os.Truncate(path, size/2); err != nil {
				t.Fatal(err)
			}
			ranges[name] = [2]int64{size / 2, size}
		case 3: // 4 KB of NULs a third of the way in
			writeAt(t, path, size/3, make([]byte, 4096))
			ranges[name] = [2]int64{size / 3, size/3 + 4096}
		}
		r, ok := ranges[name]
		if !ok {
			continue
		}
		d.touched[name] = map[string]bool{}
		for _, l := range lines {
			if l.start < r[1] && l.end > r[0] {
				d.lines[name]++
				d.touched[name][l.ep] = true
			}
		}
	}
	for ep := range all {
		if !d.isTouched(ep) {
			d.intact = append(d.intact, ep)
		}
	}
	slices.Sort(d.intact)
	if len(d.intact) < 30 || d.flipped == "" {
		t.Fatalf("%d intact episodes of %d, flipped %q: the damage is not what the test means", len(d.intact), len(all), d.flipped)
	}
	return d
}

func (d *damagedLog) isTouched(ep string) bool {
	for _, eps := range d.touched {
		if eps[ep] {
			return true
		}
	}
	return false
}

// segmentLines reads a segment's lines with their offsets and the fields
// that say whose they are.
func segmentLines(t *testing.T, path string) []segLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []segLine
	for off := int64(0); off < int64(len(b)); {
		n := int64(bytes.IndexByte(b[off:], '\n'))
		if n < 0 {
			t.Fatalf("%s: a torn line at %d before any damage", path, off)
		}
		var ev struct{ Ev, Ep string }
		if err := json.Unmarshal(b[off:off+n], &ev); err != nil {
			t.Fatalf("%s at %d: %v", path, off, err)
		}
		out = append(out, segLine{start: off, end: off + n + 1, ev: ev.Ev, ep: ev.Ep})
		off += n + 1
	}
	return out
}

func flipBytes(t *testing.T, path string, at, n int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := at; i < at+n; i++ {
		b[i] ^= 0xff // never makes a newline of JSON text
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeAt(t *testing.T, path string, at int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}

// damageLine matches a damaged segment's line in a report.
var damageLine = regexp.MustCompile(`(traj-\d{6}\.log): (\d+) lines? damaged at byte \d+ \(line \d+\): [^\n]*?; episodes: ([^\n]*)`)

// checkDamageReport holds a report to the damage: each damaged segment
// named with the lines it lost, the episodes named all touched by it,
// and named or counted as unknown, every one of them; the flipped
// line's episode named; the intact segment not mentioned.
func (d *damagedLog) checkDamageReport(t *testing.T, what, report string) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range damageLine.FindAllStringSubmatch(report, -1) {
		seg, lines := m[1], m[2]
		seen[seg] = true
		if want := strconv.Itoa(d.lines[seg]); lines != want {
			t.Errorf("%s: %s reported with %s damaged lines, want %s", what, seg, lines, want)
		}
		named, unknown := reportedEpisodes(m[3])
		for _, ep := range named {
			if !d.touched[seg][ep] {
				t.Errorf("%s: %s names %s, which it did not touch", what, seg, ep)
			}
		}
		if len(named)+unknown != len(d.touched[seg]) {
			t.Errorf("%s: %s names %d episodes and %d unknown, want %d touched in all: %s", what, seg, len(named), unknown, len(d.touched[seg]), m[3])
		}
		if seg == damagedSegments[0] && !slices.Contains(named, d.flipped) {
			t.Errorf("%s: %s does not name %s, whose line had bytes flipped: %s", what, seg, d.flipped, m[3])
		}
	}
	for _, seg := range damagedSegments {
		if !seen[seg] {
			t.Errorf("%s: damaged segment %s not reported:\n%s", what, seg, report)
		}
	}
	if strings.Contains(report, "traj-000004.log:") {
		t.Errorf("%s: the intact segment reported as damaged:\n%s", what, report)
	}
}

// reportedEpisodes parses a report's episode list: the ids, and how many
// more it says are unknown.
func reportedEpisodes(list string) (ids []string, unknown int) {
	for _, part := range strings.Split(list, ", ") {
		if strings.HasPrefix(part, "ep_") {
			ids = append(ids, part)
		} else if n, _, ok := strings.Cut(part, " unknown"); ok {
			unknown, _ = strconv.Atoi(n)
		}
	}
	return ids, unknown
}

// recordIDs are the episode ids of a file of records, sorted.
func recordIDs(t *testing.T, path string) []string {
	t.Helper()
	var ids []string
	for _, rec := range jsonLines(t, path) {
		ids = append(ids, rec["episode_id"].(string))
	}
	slices.Sort(ids)
	return ids
}

// TestExportReportsDamage exports a damaged log: every undamaged episode
// is written, the damage is reported on stderr, and the command fails
// with the damage status unless --allow-damage accepts it.
func TestExportReportsDamage(t *testing.T) {
	d := newDamagedLog(t)
	raw := filepath.Join(d.dir, "raw.jsonl")
	stdout, stderr, err := sqlgym(t, "export", "--data-dir", d.dir, "--format", "raw", "--out", raw)
	if err == nil || exitCode(err) != exitDamaged {
		t.Errorf("export of a damaged log: %v (exit %d), want exit %d", err, exitCode(err), exitDamaged)
	}
	d.checkDamageReport(t, "export", stderr)
	if got := recordIDs(t, raw); !slices.Equal(got, d.intact) {
		t.Errorf("export wrote %d episodes, want the %d undamaged ones", len(got), len(d.intact))
	}
	if !strings.Contains(stdout, fmt.Sprintf("kept %d episodes", len(d.intact))) {
		t.Errorf("export report:\n%s", stdout)
	}
	_, stderr, err = sqlgym(t, "export", "--data-dir", d.dir, "--format", "sft", "--allow-damage", "--out", filepath.Join(d.dir, "sft.jsonl"))
	if err != nil {
		t.Errorf("export --allow-damage: %v", err)
	}
	d.checkDamageReport(t, "export --allow-damage", stderr)
}

// TestReplayReportsDamage replays a damaged log: every undamaged episode
// reproduces, and the damage is reported.
func TestReplayReportsDamage(t *testing.T) {
	d := newDamagedLog(t)
	stdout, stderr, err := sqlgym(t, "replay", "--data-dir", d.dir)
	if err == nil || exitCode(err) != exitDamaged {
		t.Errorf("replay of a damaged log: %v (exit %d), want exit %d", err, exitCode(err), exitDamaged)
	}
	n := len(d.intact)
	if want := fmt.Sprintf("%d episodes: %d reproduced, 0 diverged", n, n); !strings.Contains(stdout, want) {
		t.Errorf("replay printed:\n%s\nwant %q", stdout, want)
	}
	d.checkDamageReport(t, "replay", stderr)
}

// TestRescoreReportsDamage rescores a damaged log.
func TestRescoreReportsDamage(t *testing.T) {
	d := newDamagedLog(t)
	spec := writeJSON(t, t.TempDir(), "double.json", `{"final": {"correct": 2}}`)
	stdout, stderr, err := sqlgym(t, "rescore", "--data-dir", d.dir, "--reward", spec)
	if err == nil || exitCode(err) != exitDamaged {
		t.Errorf("rescore of a damaged log: %v (exit %d), want exit %d", err, exitCode(err), exitDamaged)
	}
	if want := fmt.Sprintf("rescored %d episodes", len(d.intact)); !strings.Contains(stdout, want) {
		t.Errorf("rescore printed:\n%s\nwant %q", stdout, want)
	}
	d.checkDamageReport(t, "rescore", stderr)
}

// TestCleanLogReportsNoDamage reads an undamaged log: no report, exit 0.
func TestCleanLogReportsNoDamage(t *testing.T) {
	dir := t.TempDir()
	recordSessions(t, dir, 2, 4)
	for _, args := range [][]string{
		{"export", "--data-dir", dir, "--format", "raw"},
		{"replay", "--data-dir", dir},
	} {
		_, stderr, err := sqlgym(t, args...)
		if err != nil || strings.Contains(stderr, "damaged") {
			t.Errorf("%v on a clean log: %v\n%s", args, err, stderr)
		}
	}
}
