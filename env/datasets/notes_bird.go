package datasets

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/env"
)

// birdNotes reads a BIRD database's database_description folder, one
// <table>.csv per table with the columns original_column_name,
// column_name, column_description, data_format and value_description.
// Real files are often not UTF-8 and carry byte-order marks: a file that
// is not valid UTF-8 is read as Latin-1, and every BOM is dropped. A
// database without the folder has no notes (nil).
func birdNotes(dir string) (*env.DBNotes, error) {
	files, err := filepath.Glob(filepath.Join(dir, "database_description", "*.csv"))
	if err != nil || len(files) == 0 {
		return nil, err
	}
	n := &env.DBNotes{}
	for _, f := range files {
		table := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if err := readBirdCSV(n, table, f); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return n, nil
}

func readBirdCSV(n *env.DBNotes, table, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r := csv.NewReader(strings.NewReader(decodeText(raw)))
	r.FieldsPerRecord, r.LazyQuotes = -1, true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil // an empty file says nothing
	}
	if err != nil {
		return fmt.Errorf("header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(clean(h))] = i
	}
	orig, ok := col["original_column_name"]
	if !ok {
		return errors.New("no original_column_name column in the header")
	}
	cell := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if orig >= len(rec) || clean(rec[orig]) == "" {
			continue
		}
		setColumn(n, table, clean(rec[orig]), env.ColumnNote{
			Name: cell(rec, "column_name"), Description: cell(rec, "column_description"),
			Format: cell(rec, "data_format"), Values: cell(rec, "value_description"),
		})
	}
}

// decodeText returns raw as text: without a leading UTF-8 byte-order
// mark, as UTF-8 when it is valid UTF-8, else as Latin-1 (each byte the
// code point of its value).
func decodeText(raw []byte) string {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	if utf8.Valid(raw) {
		return string(raw)
	}
	runes := make([]rune, len(raw))
	for i, b := range raw {
		runes[i] = rune(b)
	}
	return string(runes)
}
