package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MergeDatasetInfo returns the dataset_info.json existing (empty for a
// new one) with the entry name set to entry: replaced where it was, or
// added at the end, every other entry kept as it was and in its order.
func MergeDatasetInfo(existing []byte, name string, entry DatasetInfo) ([]byte, error) {
	val, err := json.Marshal(entry)
	if err != nil {
		return nil, err
	}
	keys, vals, err := objectMembers(existing)
	if err != nil {
		return nil, err
	}
	replaced := false
	for i, k := range keys {
		if k == name {
			vals[i], replaced = val, true
		}
	}
	if !replaced {
		keys, vals = append(keys, name), append(vals, val)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vals[i])
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// objectMembers splits a JSON object into its keys and raw values, in
// order; blank input is an empty object.
func objectMembers(data []byte) (keys []string, vals []json.RawMessage, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object of dataset descriptions")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("entry %q: %w", tok, err)
		}
		keys, vals = append(keys, tok.(string)), append(vals, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("data after the object")
	}
	return keys, vals, nil
}
