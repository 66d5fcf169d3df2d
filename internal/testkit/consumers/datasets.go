package consumers

import (
	"fmt"
	"reflect"
	"strings"
)

// How Hugging Face datasets loads a JSON-lines file, which TRL (datasets
// >= 4.7.0, its pyproject.toml) and LLaMA-Factory (datasets <= 4.0.0,
// its pyproject.toml) both call, from huggingface/datasets at
// b7cb10b0e38ab8bbefdb142d0279bc85ac8c7ab8:
//
//   - 4.0.0 (tag 4.0.0, src/datasets/packaged_modules/json/json.py:
//     _generate_tables) hands the lines to pyarrow's read_json, which
//     infers one type per column: the objects at one place become one
//     struct holding every key any of them has, and an object lacking a
//     key gets null for it; values of one place that are of different
//     JSON kinds are an error ("changed from ... to ...").
//   - 4.7.0 and later (json.py: on_mixed_types="use_json", and
//     src/datasets/utils/json.py: find_mixed_struct_types_field_paths)
//     first look for places where the objects do not all have the same
//     keys, and keep those as JSON (the Json() type): each object comes
//     back as it was. Elsewhere pyarrow infers as before.
//
// LoadJSONLines does either to whole lines (datasets looks at the first
// 10 MB for the mixed places; the files here are smaller).

// LoadJSONLines returns the rows as datasets of the given generation
// would give them back: useJSON for 4.7.0 and later, not for 4.0.0.
func LoadJSONLines(lines [][]byte, useJSON bool) ([]map[string]any, error) {
	rows := make([]any, len(lines))
	for i, l := range lines {
		row, err := object(l)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		rows[i] = row
	}
	var keep [][]string
	if useJSON {
		keep = mixedPlaces(nil, rows)
	}
	out, err := conform(nil, rows, keep)
	if err != nil {
		return nil, err
	}
	res := make([]map[string]any, len(out))
	for i, r := range out {
		res[i] = r.(map[string]any)
	}
	return res, nil
}

// mixedPlaces is find_mixed_struct_types_field_paths (utils/json.py:65-89):
// the places (paths of keys, "[]" for the items of a list) whose objects
// do not all have the same keys, or are empty, or mix objects or lists
// with other kinds. The root is never one.
func mixedPlaces(path []string, values []any) [][]string {
	values = nonNil(values)
	if len(values) == 0 {
		return nil
	}
	objs, lists := kinds(values)
	switch {
	case objs == len(values):
		first := values[0].(map[string]any)
		for _, v := range values {
			if path != nil && (!sameKeys(v.(map[string]any), first) || len(first) == 0) {
				return [][]string{path}
			}
		}
		var out [][]string
		for _, k := range keysOf(values) {
			out = append(out, mixedPlaces(append(clip(path), k), field(values, k))...)
		}
		return out
	case lists == len(values):
		return mixedPlaces(append(clip(path), "[]"), items(values))
	case objs+lists > 0:
		return [][]string{path}
	}
	return nil
}

// conform gives every value at path the type pyarrow infers for them
// all: objects get every key any of them has (null where they lack it),
// except at the places keep holds, which come back as they are.
func conform(path []string, values []any, keep [][]string) ([]any, error) {
	for _, k := range keep {
		if reflect.DeepEqual(k, path) {
			return values, nil
		}
	}
	present := nonNil(values)
	if len(present) == 0 {
		return values, nil
	}
	objs, lists := kinds(present)
	out := make([]any, len(values))
	switch {
	case objs == len(present):
		keys := keysOf(present)
		cols := map[string][]any{}
		for _, k := range keys {
			col, err := conform(append(clip(path), k), field(values, k), keep)
			if err != nil {
				return nil, err
			}
			cols[k] = col
		}
		for i, v := range values {
			if v == nil {
				continue
			}
			m := map[string]any{}
			for _, k := range keys {
				m[k] = cols[k][i]
			}
			out[i] = m
		}
		return out, nil
	case lists == len(present):
		flat, err := conform(append(clip(path), "[]"), items(values), keep)
		if err != nil {
			return nil, err
		}
		for i, v := range values {
			if v != nil {
				n := len(v.([]any))
				out[i], flat = flat[:n:n], flat[n:]
			}
		}
		return out, nil
	}
	kind := fmt.Sprintf("%T", present[0])
	for _, v := range present {
		if fmt.Sprintf("%T", v) != kind {
			return nil, fmt.Errorf("JSON parse error: Column(/%s) changed from %s to %T", strings.Join(path, "/"), kind, v)
		}
	}
	return values, nil
}

func nonNil(values []any) []any {
	var out []any
	for _, v := range values {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

// kinds counts the objects and the lists among values.
func kinds(values []any) (objs, lists int) {
	for _, v := range values {
		switch v.(type) {
		case map[string]any:
			objs++
		case []any:
			lists++
		}
	}
	return objs, lists
}

// keysOf is every key of the objects, in the order first seen.
func keysOf(objs []any) []string {
	var keys []string
	seen := map[string]bool{}
	for _, o := range objs {
		for _, k := range sortedKeys(o.(map[string]any)) {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// field is each value's k (nil for a value that is not an object or
// lacks it).
func field(values []any, k string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		if m, ok := v.(map[string]any); ok {
			out[i] = m[k]
		}
	}
	return out
}

// items is the items of every list among values, one after another.
func items(values []any) []any {
	var out []any
	for _, v := range values {
		if l, ok := v.([]any); ok {
			out = append(out, l...)
		}
	}
	return out
}

func sameKeys(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

func clip(path []string) []string { return path[:len(path):len(path)] }
