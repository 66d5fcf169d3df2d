package openenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// resetFields are the names a reset's data may carry: ResetData's JSON
// fields, the embedded ResetParams' among them. Computed once, never
// changed.
var resetFields = sync.OnceValue(func() map[string]bool { return jsonNames(reflect.TypeFor[ResetData]()) })

// jsonNames are the JSON names of a struct type's exported fields, those
// of its embedded structs included.
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			maps.Copy(names, jsonNames(f.Type))
		case name == "":
			names[f.Name] = true
		default:
			names[name] = true
		}
	}
	return names
}

// resetOf reads a reset's data as OpenEnv's server reads a reset's
// keyword arguments: http_server.py's _get_valid_kwargs keeps those the
// environment's reset takes and drops the others, silently. The fields
// sqlgym knows (matched exactly, as Python matches a keyword) are decoded
// and checked as strictly as ever; the names of the others are returned,
// sorted, for the answer to list. Data that are not an object (or null)
// are refused, as OpenEnv's WSResetMessage refuses them.
//
// task, when set, is the task the URL names (a .../tasks/{task_id}
// base_url): the reset plays it, and may not name another.
func resetOf(data json.RawMessage, task string) (ResetData, []string, error) {
	var d ResetData
	fields, err := resetObject(data)
	if err != nil {
		return d, nil, err
	}
	var ignored []string
	for name := range fields {
		if !resetFields()[name] {
			ignored = append(ignored, name)
			delete(fields, name)
		}
	}
	slices.Sort(ignored)
	if len(fields) > 0 {
		known, _ := json.Marshal(fields) // raw messages that decoded: cannot fail
		if err := decodeStrict(known, &d, "reset data"); err != nil {
			return d, nil, err
		}
	}
	if err := withTask(&d, task); err != nil {
		return d, nil, err
	}
	return d, ignored, nil
}

// resetObject is a reset's data as an object's fields; no data (or null)
// is no field.
func resetObject(data json.RawMessage) (map[string]json.RawMessage, error) {
	if raw := bytes.TrimSpace(data); len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, invalid(fmt.Sprintf("reset data: %v (an object is expected)", err))
	}
	return fields, nil
}

// withTask makes d play the task the URL names, if any.
func withTask(d *ResetData, task string) error {
	switch {
	case task == "":
	case d.TaskID != "" && d.TaskID != task:
		return invalid(fmt.Sprintf("reset data name task_id %q, but this base_url plays task %q", d.TaskID, task))
	default:
		d.TaskID = task
	}
	return nil
}
