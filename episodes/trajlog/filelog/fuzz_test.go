package filelog

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// FuzzSegment feeds arbitrary bytes to the reader, Verify and recovery
// as a segment: none may fail or panic, and after recovery the segment ends
// on a good line.
func FuzzSegment(f *testing.F) {
	var seg bytes.Buffer
	for _, ev := range []*event{{Ev: evOpen}, {Ev: evBegin, Ep: "e", Traj: episode(1)},
		{Ev: evStep, Ep: "e", Step: new(stepOf(1))}, {Ev: evEnd, Ep: "e", Traj: episode(1), Turns: 1}} {
		line, _ := encodeLine(ev)
		seg.Write(line)
	}
	f.Add(seg.Bytes())
	seg.Write(encodeLineOf(evBegin, &event{Ev: evBegin, Ep: "f", Traj: episode(2)}))
	seg.Write(slimEndLine(2)) // the end of an episode whose begin and steps were logged
	f.Add(seg.Bytes())
	f.Add(slimEndLine(3)) // and one whose begin is not there
	f.Add(seg.Bytes()[:seg.Len()-7])
	f.Add([]byte(`{"ev":"end","ep":"x","traj":{},"crc":"00000000"}` + "\n"))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(segmentPath(dir, 1), data, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ro := mustOpen(t, dir, Options{ReadOnly: true})
		if _, err := ro.Scan(ctx, trajlog.Filter{Incomplete: true}, func(*trajlog.Record) error { return nil }); err != nil {
			t.Fatalf("scan: %v", err)
		}
		if _, err := ro.Verify(ctx); err != nil {
			t.Fatalf("verify: %v", err)
		}
		l := mustOpen(t, dir, Options{NoSync: true})
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(segmentPath(dir, 1))
		if len(b) > 0 && (b[len(b)-1] != '\n' || verifyLine(b[bytes.LastIndexByte(b[:len(b)-1], '\n')+1:len(b)-1]) != nil) {
			t.Fatalf("after recovery the segment ends on a damaged line: %q", b)
		}
	})
}

// slimEndLine is the slim end line of episode i, with no step.
func slimEndLine(i int) []byte {
	tr := episode(i)
	tr.Outcome = "correct"
	return encodeLineOf(evDone, &slimEvent{Ev: evDone, Ep: tr.EpisodeID, Traj: endOf(tr)})
}

// encodeLineOf is the line of ev, an event of kind.
func encodeLineOf(kind string, ev any) []byte {
	line, err := appendLine(nil, kind, ev)
	if err != nil {
		panic(err)
	}
	return line
}

// FuzzLine checks that no change to a good line passes its checksum.
func FuzzLine(f *testing.F) {
	f.Add(5, byte(1))
	f.Add(0, byte(0x80))
	f.Fuzz(func(t *testing.T, at int, flip byte) {
		line, err := encodeLine(&event{Ev: evStep, Ep: "ep_1", Step: new(stepOf(2))})
		if err != nil {
			t.Fatal(err)
		}
		line = line[:len(line)-1]
		if err := verifyLine(line); err != nil {
			t.Fatalf("a good line fails: %v", err)
		}
		if at < 0 || flip == 0 {
			return
		}
		line[at%len(line)] ^= flip
		if verifyLine(line) == nil {
			t.Fatalf("line with byte %d flipped by %#x passes: %s", at%len(line), flip, line)
		}
	})
}
