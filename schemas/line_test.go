package schemas_test

import (
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/sqlgym/sqlgym/schemas"
)

// The trajectory log (episodes/trajlog/filelog) writes one JSON object per
// line, its kind in "ev"; docs/trajectories.md describes each kind. The
// log's event types are its own (this package may not import it), so the
// line schema is put together here from the record's types (Trajectory,
// StepRecord, TrajectoryEnd); a test of the log validates the lines it
// writes against it.

// lineSchema is the schema of one line of the trajectory log: exactly one
// of its kinds, told apart by "ev".
func (g *generator) lineSchema() *jsonschema.Schema {
	begin := g.nested(typeOf[schemas.Trajectory]())
	begin.Description = "The trajectory record without its steps: they follow as step lines."
	prop(begin, "steps") // fails generation when the record has none
	begin.Properties.Set("steps", &jsonschema.Schema{Type: "array", MaxItems: zero(), Description: "Always empty on a begin line."})
	whole := g.nested(typeOf[schemas.Trajectory]())
	whole.Description = "The whole trajectory record, every step included."
	end := g.nested(typeOf[schemas.TrajectoryEnd]())
	end.Description = "What the episode's end set; the rest of the record is its begin line's."
	step := g.nested(typeOf[schemas.StepRecord]())
	turns := field{"turns", &jsonschema.Schema{Type: "integer", Minimum: "1",
		Description: "How many steps the episode took, so that a reader notices a step line it lost; left out for none."}, true}
	at := &jsonschema.Schema{Type: "string", Format: "date-time", Description: "When the log was opened."}
	return &jsonschema.Schema{
		Version: jsonschema.Version, Type: "object", Title: "TrajectoryLine",
		OneOf: []*jsonschema.Schema{
			line("open", "A server opened the log: episodes live before it never end.", field{"at", at, false}),
			line("begin", "An episode began.", episode(), field{"traj", begin, false}),
			line("step", "One step of a live episode, in the order it took them.", episode(), field{"step", step, false}),
			line("done", "An episode whose begin and every step were logged ended.", episode(), field{"traj", end, false}, turns),
			line("end", "An episode ended that lost a begin or step line to a failed write: the whole record.",
				episode(), field{"traj", whole, false}, turns),
		},
	}
}

// field is one member of a line, required unless optional.
type field struct {
	key      string
	schema   *jsonschema.Schema
	optional bool
}

// line is the schema of the lines of kind ev: ev, the fields, and the
// checksum that closes every line.
func line(ev, desc string, fields ...field) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Title: titleOf(ev) + "Line", Description: desc, Properties: jsonschema.NewProperties()}
	fields = append([]field{{"ev", &jsonschema.Schema{Type: "string", Const: ev, Description: "The line's kind."}, false}}, fields...)
	fields = append(fields, field{"crc", &jsonschema.Schema{Type: "string", Pattern: "^[0-9a-f]{8}$",
		Description: "CRC-32C of the line without this field (the bytes before ,\"crc\":\" then }), 8 lowercase hex digits."}, false})
	for _, f := range fields {
		s.Properties.Set(f.key, f.schema)
		if !f.optional {
			s.Required = append(s.Required, f.key)
		}
	}
	return s
}

// episode is the "ep" field of an episode's lines.
func episode() field {
	return field{"ep", &jsonschema.Schema{Type: "string", MinLength: one(), Description: "The episode's id."}, false}
}

func titleOf(ev string) string { return string(ev[0]-'a'+'A') + ev[1:] }

// nested is the flat schema of t, for use inside another file.
func (g *generator) nested(t reflect.Type) *jsonschema.Schema {
	s := g.flat(t, false)
	s.Version = ""
	return s
}

func zero() *uint64 { return new(uint64) }
