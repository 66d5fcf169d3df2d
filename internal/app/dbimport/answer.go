package dbimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// answerJSON writes rows as a gold_answer: an array of rows of numbers,
// strings and nulls. A float keeps a decimal point (3.0, not 3), so the
// loader reads it back as a float; a blob is written as its text when it
// is valid UTF-8.
func answerJSON(rows [][]any) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, row := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for j, v := range row {
			if j > 0 {
				b.WriteByte(',')
			}
			if err := answerValue(&b, v); err != nil {
				return nil, fmt.Errorf("row %d, column %d: %w", i, j, err)
			}
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

func answerValue(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("%v has no JSON form", v)
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		b.WriteString(s)
	case string:
		return writeJSONString(b, v)
	case []byte:
		if !utf8.Valid(v) {
			return fmt.Errorf("a blob of %d bytes that is not UTF-8 text", len(v))
		}
		return writeJSONString(b, string(v))
	default:
		return fmt.Errorf("unexpected value type %T", v)
	}
	return nil
}

// writeJSONString writes s as a JSON string, leaving <, > and & as they
// are.
func writeJSONString(b *bytes.Buffer, s string) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // the newline Encode ends with
	return nil
}
