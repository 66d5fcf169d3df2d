package filelog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// jsonShape decodes a line's shape with encoding/json.
func jsonShape(line []byte) (shape, error) {
	var sh shape
	err := json.Unmarshal(line, &sh)
	return sh, err
}

// shapeText is what a shape tells, as text to compare.
func shapeText(sh shape) string {
	return fmt.Sprintf("ev %q ep %q turns %d step %v traj %v steps %v", sh.Ev, sh.Ep, sh.Turns,
		sh.Step != nil, sh.Traj != nil, sh.Traj != nil && sh.Traj.Steps != nil)
}

// TestShapeMatchesJSON decodes the shape of every line of a log, the
// fast way and with encoding/json: the same, line for line.
func TestShapeMatchesJSON(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{NoSync: true})
	interleaved(t, l, 12)
	tr := episode(40) // a lone end, which carries its steps
	tr.Steps = append(tr.Steps, stepOf(1))
	tr.Tags = json.RawMessage(`{"steps":null,"traj":{"steps":[1]},"q":"a \"quoted\" \\ {[ brace"}`)
	if err := l.End(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	l.Close()
	b, _ := os.ReadFile(segmentPath(dir, 1))
	n := 0
	for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var fast shape
		end, err := fast.scan(line)
		want, jerr := jsonShape(line)
		if err != nil || end != len(line) || jerr != nil || shapeText(fast) != shapeText(want) {
			t.Errorf("line %d: fast %s (end %d of %d, %v), json %s (%v)", n+1, shapeText(fast), end, len(line), err, shapeText(want), jerr)
		}
		n++
	}
	if n != 1+12*5+1 {
		t.Errorf("%d lines checked", n)
	}
}

// TestShapeSeeds: the lines the shape's fuzz test was seeded with (now
// seeds of base/jsonscan's FuzzScanner, which checks the scanner)
// decode to the same shape as with encoding/json, and the fast way reads
// each valid one whole.
func TestShapeSeeds(t *testing.T) {
	var lines [][]byte
	for _, ev := range []*event{{Ev: evOpen}, {Ev: evBegin, Ep: "e", Traj: episode(1)},
		{Ev: evStep, Ep: "e", Step: new(stepOf(1))}, {Ev: evEnd, Ep: "e", Traj: episode(1), Turns: 1}} {
		line, _ := encodeLine(ev)
		lines = append(lines, line[:len(line)-1])
	}
	lines = append(lines, slimEndLine(1)[:len(slimEndLine(1))-1],
		[]byte(`{"ev":"done","ep":"e","traj":{"outcome":"correct"},"turns":2}`),
		[]byte(`{"ev":"step","ep":"a\"b","step":{}}`), []byte(`{"traj":{"steps":[]},"traj":{"outcome":"x"}}`),
		[]byte("{\"ev\":\"\x95\"}"))
	for _, line := range lines {
		var fast shape
		end, err := fast.scan(line)
		want, jerr := jsonShape(line)
		if err != nil || end != len(line) || jerr != nil || shapeText(fast) != shapeText(want) {
			t.Errorf("%s: fast %s (end %d of %d, %v), json %s (%v)", line, shapeText(fast), end, len(line), err, shapeText(want), jerr)
		}
	}
	for _, bad := range []string{`{"traj":{"steps":`, `{"Ev":"x"}`, `{"turns":1.0}`} {
		var fast shape
		if end, err := fast.scan([]byte(bad)); err == nil && end == len(bad) {
			t.Errorf("%q read the fast way; it is left to encoding/json", bad)
		}
	}
}
