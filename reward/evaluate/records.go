package evaluate

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym/base/atomicfile"
)

// WriteRecords writes one JSON record per line to w.
func WriteRecords(w io.Writer, recs []Record) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return fmt.Errorf("write records: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write records: %w", err)
	}
	return nil
}

// WriteRecordsFile writes the records to path as JSON lines. The file
// appears whole or not at all: it is written beside path, synced and
// renamed into place.
func WriteRecordsFile(path string, recs []Record) error {
	err := atomicfile.Write(path, atomicfile.Options{}, func(w *bufio.Writer) error {
		return WriteRecords(w, recs)
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadRecords reads the records WriteRecords wrote.
func ReadRecords(r io.Reader) ([]Record, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var recs []Record
	for {
		var rec Record
		err := dec.Decode(&rec)
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read records: record %d: %w", len(recs)+1, err)
		}
		recs = append(recs, rec)
	}
}
