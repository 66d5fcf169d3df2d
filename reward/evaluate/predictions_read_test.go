package evaluate

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes a predictions file in a temporary folder.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadPredictionsBoundsALine refuses a line (or a BIRD key or value)
// past MaxLineBytes, naming where it is and the bound, and takes one at
// the bound.
func TestReadPredictionsBoundsALine(t *testing.T) {
	long := strings.Repeat("x", 100)
	huge := strings.Repeat("z", 4000) // past the JSON decoder's first read
	tests := []struct {
		name, data string
		wantErr    string // empty: read fine
	}{
		{"ok.sql", "SELECT 1\n" + long[:64] + "\r\n", ""},
		{"second.sql", "SELECT 1\n" + long + "\nSELECT 3\n", "line 2: longer than 64 bytes"},
		{"first.sql", "\xef\xbb\xbf" + long, "line 1: longer than 64 bytes"},
		{"value.json", `{"0": "SELECT 1", "1": "` + long + `"}`, `the value of key "1": longer than 64 bytes`},
		{"bigvalue.json", `{"0": "SELECT 1", "1": "` + huge + `"}`, `the value of key "1": longer than 64 bytes`},
		{"key.json", `{"0": "SELECT 1", "` + huge + `": "x"}`, `the key after key "0": longer than 64 bytes`},
		{"firstkey.json", `{"` + huge + `": "x"}`, `the first key: longer than 64 bytes`},
		{"ok.json", `{"0": "` + long[:60] + `", "1": "SELECT 2"}`, ""},
	}
	for _, tt := range tests {
		_, _, err := ReadPredictions(writeFile(t, tt.name, []byte(tt.data)), ReadLimits{MaxLineBytes: 64})
		var tl *LineTooLongError
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (!errors.As(err, &tl) || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want a *LineTooLongError containing %q", tt.name, err, tt.wantErr)
		}
	}
}

// TestReadPredictionsStopsAtTheBound reads a file with one line far past
// the bound through a reader that counts: it stops within a buffer or two
// of the bound, not at the end of the file.
func TestReadPredictionsStopsAtTheBound(t *testing.T) {
	for _, tt := range []struct {
		name string
		head []byte
	}{{"one.sql", []byte("SELECT ")}, {"one.json", []byte(`{"0": "`)}} {
		data := append(tt.head, bytes.Repeat([]byte("y"), 8<<20)...)
		r := &countingReader{data: data}
		var err error
		if strings.HasSuffix(tt.name, ".json") {
			_, err = readBird(bufioReader(r), ReadLimits{MaxLineBytes: 1 << 10})
		} else {
			_, err = readSpider(bufioReader(r), ReadLimits{MaxLineBytes: 1 << 10})
		}
		var tl *LineTooLongError
		if !errors.As(err, &tl) {
			t.Fatalf("%s: %v, want a *LineTooLongError", tt.name, err)
		}
		if r.read > 256<<10 {
			t.Errorf("%s: read %d of %d bytes before refusing a line over 1 KiB", tt.name, r.read, len(data))
		}
	}
}

// TestReadPredictionsBoundsTheCount stops at MaxPredictions + 1.
func TestReadPredictionsBoundsTheCount(t *testing.T) {
	for name, data := range map[string]string{
		"many.sql":  "SELECT 1\nSELECT 2\nSELECT 3\n",
		"many.json": `{"0": "a", "1": "b", "2": "c"}`,
	} {
		_, _, err := ReadPredictions(writeFile(t, name, []byte(data)), ReadLimits{MaxPredictions: 2})
		if !errors.Is(err, ErrTooManyPredictions) || !strings.Contains(err.Error(), "more than 2") {
			t.Errorf("%s: %v, want ErrTooManyPredictions saying more than 2", name, err)
		}
		if preds, _, err := ReadPredictions(writeFile(t, name, []byte(data)), ReadLimits{MaxPredictions: 3}); err != nil || len(preds) != 3 {
			t.Errorf("%s with a bound of 3: %d predictions, %v", name, len(preds), err)
		}
	}
}

// countingReader serves data and counts what was read.
type countingReader struct {
	data []byte
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= len(c.data) {
		return 0, io.EOF
	}
	n := copy(p, c.data[c.read:])
	c.read += n
	return n, nil
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 64<<10) }
