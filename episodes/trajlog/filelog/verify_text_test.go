package filelog

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestVerifyText renders a clean log and one with a faulty index: a line
// per segment, an INDEX line for the fault, and a summary that says
// clean or counts the faults.
func TestVerifyText(t *testing.T) {
	dir := t.TempDir()
	damageLog(t, dir, nil)
	rep, err := mustOpen(t, dir, Options{ReadOnly: true}).Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	text := rep.Text()
	ok := 0
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "ok      ") {
			ok++
		}
	}
	if ok != len(rep.Segments) || !strings.HasSuffix(text, "60 episodes: clean\n") {
		t.Errorf("clean log rendered as:\n%s", text)
	}
	os.WriteFile(indexPath(dir, 3), []byte("{not json"), 0o644)
	rep, err = mustOpen(t, dir, Options{ReadOnly: true}).Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	text = rep.Text()
	if !strings.Contains(text, "INDEX   "+segmentName(3)+": faulty index: ") || !strings.Contains(text, "1 faulty indexes\n") {
		t.Errorf("faulty index rendered as:\n%s", text)
	}
}
