package evaluate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Formats of a predictions file.
const (
	FormatSpider = "spider" // one SQL per line, optionally SQL<TAB>db_id
	FormatBird   = "bird"   // {"0": "SQL\t----- bird -----\tdb_id", ...}
)

// BirdSeparator splits the SQL from the db_id in a BIRD predictions value.
const BirdSeparator = "\t----- bird -----\t"

// Prediction is one predicted query of a predictions file.
type Prediction struct {
	SQL string
	// DBID is the db_id the file gives with the query; empty when it gives
	// none, and then not checked.
	DBID string
	// Pos says where the prediction is in its file, for error messages:
	// "line 12" or "key \"11\"".
	Pos string
}

// ReadPredictions reads a predictions file and returns its predictions in
// dataset order with the format it found: BIRD JSON when the name ends in
// .json or the first non-blank byte is '{', Spider lines otherwise. The
// file is read as a stream within lim: a line (or JSON string) or a count
// past them is refused where the reader meets it, without reading on.
func ReadPredictions(path string, lim ReadLimits) ([]Prediction, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("predictions: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(br.Size()) // an error here is met again below
	format := DetectFormat(path, head)
	var preds []Prediction
	switch format {
	case FormatBird:
		preds, err = readBird(br, lim.withDefaults())
	default:
		preds, err = readSpider(br, lim.withDefaults())
	}
	if err != nil {
		return nil, format, fmt.Errorf("predictions %s: %w", path, err)
	}
	return preds, format, nil
}

// DetectFormat names the format of a predictions file from its name and
// content: FormatBird for a .json file or one whose first non-blank byte is
// '{' (no SQL statement starts with it), FormatSpider otherwise.
func DetectFormat(path string, data []byte) string {
	data = bytes.TrimLeft(bytes.TrimPrefix(data, bom), " \t\r\n")
	if strings.EqualFold(filepath.Ext(path), ".json") || bytes.HasPrefix(data, []byte("{")) {
		return FormatBird
	}
	return FormatSpider
}

// ParsePredictions parses data in the given format.
func ParsePredictions(format string, data []byte) ([]Prediction, error) {
	switch format {
	case FormatSpider:
		return ParseSpider(data), nil
	case FormatBird:
		return ParseBird(data)
	}
	return nil, fmt.Errorf("unknown predictions format %q (want %s or %s)", format, FormatSpider, FormatBird)
}

var bom = []byte("\xef\xbb\xbf")

// ParseSpider reads one prediction per line, as Spider's evaluation.py
// takes them. Every line ended by a newline is a prediction, an empty one
// included (it scores as a failing query; it is never skipped, which would
// shift every later line onto the wrong task); a last line without a
// newline counts when it is not empty. A line "SQL<TAB>db_id" gives the
// db_id as well: the text after the last tab is taken as a db_id when it
// is a plain name (letters, digits, '_', '-', '.'); otherwise the whole
// line is SQL.
func ParseSpider(data []byte) []Prediction {
	preds, _ := readSpider(bufio.NewReader(bytes.NewReader(data)), ReadLimits{}) // no limit: no error
	return preds
}

// splitSpiderLine splits "SQL<TAB>db_id" when the tail is a plain name.
func splitSpiderLine(line string) Prediction {
	i := strings.LastIndexByte(line, '\t')
	if i < 0 {
		return Prediction{SQL: strings.TrimSpace(line)}
	}
	tail := strings.TrimSpace(line[i+1:])
	if !plainName(tail) {
		return Prediction{SQL: strings.TrimSpace(line)}
	}
	return Prediction{SQL: strings.TrimSpace(line[:i]), DBID: tail}
}

// plainName reports whether s can be a db_id: letters, digits, '_', '-'
// and '.', nothing else.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		ok := r == '_' || r == '-' || r == '.' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if !ok {
			return false
		}
	}
	return true
}

// ParseBird reads BIRD's predict_dev.json: one JSON object whose keys are
// the indexes 0..n-1 of the dataset's tasks, each exactly once, and whose
// values are "SQL\t----- bird -----\tdb_id" (a value without the separator
// is all SQL, with no db_id to check). Errors name the key at fault.
func ParseBird(data []byte) ([]Prediction, error) {
	return readBird(bufio.NewReader(bytes.NewReader(data)), ReadLimits{})
}

// birdEntry reads one key and its value, a value of at most max bytes
// (0: no bound).
func birdEntry(dec *json.Decoder, max int) (int, Prediction, error) {
	tok, err := dec.Token()
	if err != nil {
		return 0, Prediction{}, fmt.Errorf("malformed JSON: %w", err)
	}
	key, _ := tok.(string)
	idx, err := strconv.Atoi(key)
	if err != nil || idx < 0 || strconv.Itoa(idx) != key {
		return 0, Prediction{}, fmt.Errorf("key %q: want a task index (0, 1, 2, ...)", key)
	}
	var value string
	if err := dec.Decode(&value); err != nil {
		var tl *LineTooLongError
		if errors.As(err, &tl) {
			tl.Pos = fmt.Sprintf("the value of key %q", key)
			return 0, Prediction{}, tl
		}
		return 0, Prediction{}, fmt.Errorf("key %q: want a string \"SQL%sdb_id\": %w", key, strings.ReplaceAll(BirdSeparator, "\t", `\t`), err)
	}
	if max > 0 && len(value) > max {
		return 0, Prediction{}, &LineTooLongError{Pos: fmt.Sprintf("the value of key %q", key), Max: max}
	}
	sql, dbID, _ := strings.Cut(value, BirdSeparator)
	return idx, Prediction{SQL: strings.TrimSpace(sql), DBID: strings.TrimSpace(dbID), Pos: fmt.Sprintf("key %q", key)}, nil
}
