package filelog

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestVerifyCleanLog verifies a log as written: every segment checks.
func TestVerifyCleanLog(t *testing.T) {
	dir := t.TempDir()
	damageLog(t, dir, nil)
	rep, err := mustOpen(t, dir, Options{ReadOnly: true}).Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Clean() || len(rep.Segments) < 8 || rep.Episodes != 60 {
		t.Errorf("verify of a clean log: clean %v over %d segments, %d episodes", rep.Clean(), len(rep.Segments), rep.Episodes)
	}
	for _, c := range rep.Segments {
		if c.NoIndex || c.TornTail || c.IndexFault != "" || c.Damage != nil {
			t.Errorf("segment %+v", c)
		}
	}
}

// TestVerifyFindsFaultyIndex: an index that disagrees with its intact
// segment, and one that cannot be read, are faults.
func TestVerifyFindsFaultyIndex(t *testing.T) {
	dir := t.TempDir()
	damageLog(t, dir, nil)
	x, _ := readIndex(dir, 2)
	x.Ends++
	if err := writeIndex(dir, x, false); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(indexPath(dir, 3), []byte("{not json"), 0o644)
	rep, err := mustOpen(t, dir, Options{ReadOnly: true}).Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	faults := map[string]string{}
	for _, c := range rep.Segments {
		if c.IndexFault != "" {
			faults[c.Segment] = c.IndexFault
		}
	}
	if len(faults) != 2 || !strings.Contains(faults[segmentName(2)], "ends") || !strings.Contains(faults[segmentName(3)], "bad JSON") ||
		rep.Clean() || len(rep.Damage()) != 0 {
		t.Errorf("index faults %v, damage %v; want segments 2 (counts) and 3 (unreadable), no damage", faults, rep.Damage())
	}
}

// TestOpenVerifiesInBackground opens a writer on a damaged log: it warns
// of each damaged segment with structured fields, then sums up, while
// taking writes.
func TestOpenVerifiesInBackground(t *testing.T) {
	dir := t.TempDir()
	_, damage := damageLog(t, dir, map[int]harm{2: flipIn(evStep), 5: cutToHalf, 8: nulsInThird})
	core, logs := observer.New(zapcore.InfoLevel)
	l := mustOpen(t, dir, Options{Logger: zap.New(core), Verify: true, NoSync: true})
	play(t, l, 100, 2, false)
	waitfor.Until(t, "the damage to be logged", func() bool { return logs.FilterMessageSnippet("trajectory log damaged").Len() == 1 })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var segs []string
	for _, e := range logs.FilterMessage("damaged trajectory segment").All() {
		f := e.ContextMap()
		seg := f["segment"].(string)
		segs = append(segs, seg)
		if f["lines"] != int64(damage[seg].lines) || e.Level != zapcore.WarnLevel {
			t.Errorf("%s: %s with fields %v, want %d lines", seg, e.Level, f, damage[seg].lines)
		}
	}
	if want := []string{segmentName(2), segmentName(5), segmentName(8)}; !slices.Equal(segs, want) {
		t.Errorf("warned of %v, want %v", segs, want)
	}
}

// TestCloseStopsVerification closes a writer at once: the background
// verification stops with it (goleak checks that nothing is left).
func TestCloseStopsVerification(t *testing.T) {
	dir := t.TempDir()
	damageLog(t, dir, nil)
	core, logs := observer.New(zapcore.InfoLevel)
	for range 20 {
		l := mustOpen(t, dir, Options{Logger: zap.New(core), Verify: true, NoSync: true})
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := logs.FilterLevelExact(zapcore.WarnLevel).Len(); n != 0 {
		t.Errorf("%d warnings verifying a clean log: %v", n, logs.All())
	}
}
