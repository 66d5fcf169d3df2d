package filelog

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/schemas"
)

// shape is the part of a line that counting needs: what Verify decodes,
// instead of the whole record.
type shape struct {
	Ev    string     `json:"ev"`
	Ep    string     `json:"ep"`
	Turns int        `json:"turns"`
	Step  *struct{}  `json:"step"`
	Traj  *trajShape `json:"traj"`
}

// trajShape is the part of a record that counting needs: whether the
// line holds its steps.
type trajShape struct {
	Steps *[]struct{} `json:"steps"`
}

// decodeShape decodes a line's shape into ev, whose record and step
// stand empty (the record's steps non-nil when the line has them). A
// line whose checksum holds was written by encodeLine, compact JSON, so
// the top-level fields are found by skipping values, several times
// faster than encoding/json; anything unexpected falls back to it.
func decodeShape(line []byte, ev *event) error {
	var sh shape
	if end, err := sh.scan(line); err != nil || end != len(line) {
		sh = shape{}
		if err := json.Unmarshal(line, &sh); err != nil {
			return err
		}
	}
	ev.Ev, ev.Ep, ev.Turns = sh.Ev, sh.Ep, sh.Turns
	if sh.Step != nil {
		ev.Step = &schemas.StepRecord{}
	}
	if sh.Traj != nil {
		ev.Traj = &schemas.Trajectory{}
		if sh.Traj.Steps != nil {
			ev.Traj.Steps = []schemas.StepRecord{}
		}
	}
	return nil
}

var errShape = errors.New("unexpected JSON")

// scan reads the shape of a compact JSON object and returns the offset
// past it. A key encoding/json would match otherwise (escaped, or in
// another case) is not expected.
func (sh *shape) scan(b []byte) (int, error) {
	return eachField(b, 0, func(key []byte, v int) (int, error) {
		if !plainKey(key, "ev", "ep", "turns", "step", "traj") {
			return 0, errShape
		}
		if string(key) == "traj" {
			sh.Traj = &trajShape{}
			return eachField(b, v, func(key []byte, v int) (int, error) {
				if !plainKey(key, "steps") {
					return 0, errShape
				}
				if string(key) == "steps" {
					sh.Traj.Steps = nil
					if v < len(b) && b[v] == '[' {
						sh.Traj.Steps = &[]struct{}{}
					}
				}
				return skipValue(b, v)
			})
		}
		end, err := skipValue(b, v)
		if err != nil {
			return 0, err
		}
		switch val := b[v:end]; string(key) {
		case "ev":
			sh.Ev, err = plainString(val)
		case "ep":
			sh.Ep, err = plainString(val)
		case "turns":
			sh.Turns, err = strconv.Atoi(string(val))
		case "step":
			sh.Step = nil
			if string(val) != "null" {
				sh.Step = &struct{}{}
			}
		}
		return end, err
	})
}

// plainKey reports whether key is no escaped or case-folded spelling of
// one of known: either one of them exactly, or none of them.
func plainKey(key []byte, known ...string) bool {
	if bytes.IndexByte(key, '\\') >= 0 {
		return false
	}
	for _, k := range known {
		if bytes.EqualFold(key, []byte(k)) {
			return string(key) == k
		}
	}
	return true
}

// plainString is a JSON string with no escapes, in UTF-8, unquoted.
func plainString(v []byte) (string, error) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return "", errShape
	}
	return string(v[1 : len(v)-1]), nil
}

// eachField calls fn with each key of the compact object at b[i] and the
// offset of its value; fn returns the offset past the value. It returns
// the offset past the object.
func eachField(b []byte, i int, fn func(key []byte, v int) (int, error)) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return 0, errShape
	}
	for i++; i < len(b) && b[i] != '}'; {
		if b[i] == ',' {
			i++
		}
		end, err := skipString(b, i)
		if err != nil || end >= len(b) || b[end] != ':' {
			return 0, errShape
		}
		if i, err = fn(b[i+1:end-1], end+1); err != nil {
			return 0, err
		}
	}
	if i >= len(b) {
		return 0, errShape
	}
	return i + 1, nil
}

// skipValue returns the offset past the compact JSON value at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errShape
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errShape
	}
	end := i
	for end < len(b) && b[end] != ',' && b[end] != '}' && b[end] != ']' {
		end++
	}
	if end == i {
		return 0, errShape
	}
	return end, nil
}

// skipString returns the offset past the JSON string at b[i].
func skipString(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, errShape
	}
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		slashes := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			slashes++
		}
		if slashes%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
	return 0, errShape
}
