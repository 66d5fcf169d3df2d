package filelog

import (
	"encoding/json"
	"errors"

	"github.com/sqlgym/sqlgym/base/jsonscan"
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
// stand empty (the record's steps non-nil when the line has them). The
// top-level fields are found by skipping values with jsonscan, several
// times faster than encoding/json; anything unexpected falls back to it.
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

// scan reads the shape of a JSON object and returns the offset past it.
// Keys other than the shape's are skipped; a key encoding/json would
// match otherwise (escaped, or in another case) is not expected, nor is
// any value encoding/json would read otherwise.
func (sh *shape) scan(b []byte) (int, error) {
	s := jsonscan.New(b)
	ok := s.Object(func(key []byte) bool {
		if !plainKey(key, "ev", "ep", "turns", "step", "traj") {
			return false
		}
		switch string(key) {
		case "ev":
			return text(&s, &sh.Ev)
		case "ep":
			return text(&s, &sh.Ep)
		case "turns":
			n, ok := s.Integer()
			sh.Turns = int(n)
			return ok && int64(sh.Turns) == n
		case "step":
			sh.Step = nil
			if s.Peek() == 'n' {
				return s.Literal("null")
			}
			sh.Step = &struct{}{}
			return s.Peek() == '{' && s.Skip()
		case "traj":
			return sh.scanTraj(&s)
		}
		return s.Skip()
	})
	if !ok {
		return 0, errShape
	}
	return s.Pos(), nil
}

// scanTraj reads the value of "traj": null, or an object whose steps
// are null or an array. A repeated "traj" fills the same struct, as
// encoding/json does.
func (sh *shape) scanTraj(s *jsonscan.Scanner) bool {
	if s.Peek() == 'n' {
		sh.Traj = nil
		return s.Literal("null")
	}
	if sh.Traj == nil {
		sh.Traj = &trajShape{}
	}
	return s.Object(func(key []byte) bool {
		if !plainKey(key, "steps") {
			return false
		}
		if string(key) != "steps" {
			return s.Skip()
		}
		switch s.Peek() {
		case 'n':
			sh.Traj.Steps = nil
			return s.Literal("null")
		case '[':
			sh.Traj.Steps = &[]struct{}{}
			return s.Skip()
		}
		return false
	})
}

// text reads a string into *dst.
func text(s *jsonscan.Scanner, dst *string) bool {
	var ok bool
	*dst, ok = s.Text()
	return ok
}

// plainKey reports whether key is no case-folded spelling of one of
// known: either one of them exactly, or none of them. The scanner gives
// only keys of printable ASCII with no escape.
func plainKey(key []byte, known ...string) bool {
	for _, k := range known {
		if jsonscan.KeyIs(key, k) {
			return string(key) == k
		}
	}
	return true
}
