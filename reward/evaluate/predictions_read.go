package evaluate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DefaultMaxLineBytes is ReadLimits.MaxLineBytes' default: the longest
// statement the SQLite engine takes by default.
const DefaultMaxLineBytes = 1 << 20

// ReadLimits bound what ReadPredictions reads.
type ReadLimits struct {
	// MaxLineBytes bounds one line of a Spider file (without its line
	// break), and one key or value of a BIRD file; 0 means
	// DefaultMaxLineBytes.
	MaxLineBytes int
	// MaxPredictions bounds how many predictions are read; 0 means no
	// bound.
	MaxPredictions int
}

func (l ReadLimits) withDefaults() ReadLimits {
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	return l
}

// ErrTooManyPredictions is the error of a file with more predictions than
// ReadLimits.MaxPredictions.
var ErrTooManyPredictions = errors.New("too many predictions")

// LineTooLongError is a line of a Spider file, or a key or value of a
// BIRD file, longer than ReadLimits.MaxLineBytes. Reading stops there.
type LineTooLongError struct {
	Pos string // "line 12", `key "11"`, ...
	Max int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("%s: longer than %d bytes", e.Pos, e.Max)
}

// readSpider reads Spider lines (see ParseSpider) within lim; a zero lim
// bounds nothing.
func readSpider(r *bufio.Reader, lim ReadLimits) ([]Prediction, error) {
	skipBOM(r)
	preds := []Prediction{}
	for n := 1; ; n++ {
		line, err := readLine(r, lim.MaxLineBytes)
		if err != nil && !errors.Is(err, io.EOF) {
			var tl *LineTooLongError
			if errors.As(err, &tl) {
				tl.Pos = "line " + strconv.Itoa(n)
			}
			return nil, err
		}
		if errors.Is(err, io.EOF) && line == "" {
			return preds, nil
		}
		p := splitSpiderLine(strings.TrimRight(line, "\r\n"))
		p.Pos = "line " + strconv.Itoa(n)
		preds = append(preds, p)
		if lim.MaxPredictions > 0 && len(preds) > lim.MaxPredictions {
			return nil, fmt.Errorf("%w: more than %d lines", ErrTooManyPredictions, lim.MaxPredictions)
		}
		if errors.Is(err, io.EOF) {
			return preds, nil
		}
	}
}

// readLine reads one line with its line break, or up to the end of the
// input (then with io.EOF). Past max bytes (0: no bound) before the line
// break, it stops with a *LineTooLongError.
func readLine(r *bufio.Reader, max int) (string, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if max > 0 && len(bytes.TrimRight(line, "\r\n")) > max {
			return "", &LineTooLongError{Max: max}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return string(line), err
		}
	}
}

// readBird reads BIRD JSON (see ParseBird) within lim; a zero lim bounds
// nothing.
func readBird(r *bufio.Reader, lim ReadLimits) ([]Prediction, error) {
	skipBOM(r)
	g := &valueGuard{r: r, max: lim.MaxLineBytes}
	dec := json.NewDecoder(g)
	g.dec = dec
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("want a JSON object of index keys, as BIRD's predict_dev.json")
	}
	byIndex := map[int]Prediction{}
	prev := ""
	for dec.More() {
		idx, p, err := birdEntry(dec, lim.MaxLineBytes)
		if err != nil {
			return nil, placeTooLong(err, prev)
		}
		if _, dup := byIndex[idx]; dup {
			return nil, fmt.Errorf("%s: given twice", p.Pos)
		}
		byIndex[idx], prev = p, p.Pos
		if lim.MaxPredictions > 0 && len(byIndex) > lim.MaxPredictions {
			return nil, fmt.Errorf("%w: more than %d keys", ErrTooManyPredictions, lim.MaxPredictions)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, placeTooLong(fmt.Errorf("malformed JSON: %w", err), prev)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("malformed JSON: more after the object")
	}
	return birdInOrder(byIndex)
}

// birdInOrder lists the predictions by index, which must run from 0 with
// no gap.
func birdInOrder(byIndex map[int]Prediction) ([]Prediction, error) {
	preds := make([]Prediction, len(byIndex))
	for i := range preds {
		p, ok := byIndex[i]
		if !ok {
			return nil, fmt.Errorf("no key %q: the keys must be the indexes 0 to %d, each once", strconv.Itoa(i), len(byIndex)-1)
		}
		preds[i] = p
	}
	return preds, nil
}

// placeTooLong returns a *LineTooLongError within err, placed after the
// entry at prev when it has no place yet, or err as it is.
func placeTooLong(err error, prev string) error {
	var tl *LineTooLongError
	if !errors.As(err, &tl) {
		return err
	}
	if tl.Pos == "" {
		tl.Pos = "the first key"
		if prev != "" {
			tl.Pos = "the key after " + prev
		}
	}
	return tl
}

// valueGuard stops a json.Decoder that needs more than max bytes for one
// token: it refuses to read on while the decoder holds more than max
// bytes it has not got past.
type valueGuard struct {
	r    io.Reader
	dec  *json.Decoder
	read int64
	max  int
}

func (g *valueGuard) Read(p []byte) (int, error) {
	if g.max > 0 && g.read-g.dec.InputOffset() > int64(g.max) {
		return 0, &LineTooLongError{Max: g.max}
	}
	n, err := g.r.Read(p)
	g.read += int64(n)
	return n, err
}

// skipBOM drops a UTF-8 byte-order mark at the start of r.
func skipBOM(r *bufio.Reader) {
	if b, _ := r.Peek(len(bom)); bytes.Equal(b, bom) {
		r.Discard(len(bom))
	}
}
