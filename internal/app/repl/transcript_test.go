package repl

import (
	"flag"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in examples/repl")

// Paths of the demo transcript: the commands, and what the REPL prints
// for them with --echo.
const (
	transcriptIn  = "../../../examples/repl/demo.sqlgym"
	transcriptOut = "../../../examples/repl/demo.txt"
)

// Volatile parts of a transcript: episode ids and timings.
var (
	episodeIDs = regexp.MustCompile(`ep_[0-9a-f]{8,}`)
	timings    = regexp.MustCompile(`\d+\.\d\d ms\)`)
)

// normalize replaces what changes from run to run in a transcript.
func normalize(s string) string {
	s = episodeIDs.ReplaceAllString(s, "ep_<id>")
	return timings.ReplaceAllString(s, "<t> ms)")
}

// TestTranscript pipes the demo transcript's commands through the REPL
// and compares what it prints with the recorded transcript. Run with
// -update to record it again.
func TestTranscript(t *testing.T) {
	srv := startServer(t, 0)
	in, err := os.ReadFile(transcriptIn)
	if err != nil {
		t.Fatal(err)
	}
	got := normalize(pipe(t, srv.url, string(in), true))
	if *update {
		if err := os.WriteFile(transcriptOut, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(transcriptOut)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/app/repl -run TestTranscript -update to record it)", err)
	}
	if got != string(want) {
		t.Errorf("the transcript changed (-update records it again):\n%s", firstDiff(string(want), got))
	}
	for _, w := range []string{"CORRECT: the result matches the gold's.", "error [sql_error]", "parsed as execute_sql"} {
		if !strings.Contains(got, w) {
			t.Errorf("the transcript lacks %q: it no longer plays a complete episode", w)
		}
	}
}

// firstDiff shows the first line where got differs from want.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want " + w + "\n  got  " + g
		}
	}
	return "(no line differs)"
}
