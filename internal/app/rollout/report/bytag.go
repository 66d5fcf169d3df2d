package report

import (
	"context"
	"maps"
	"net/url"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// ByTag reads the episodes flt selects from rd into one Builder per
// value of the tag by ("": one Builder, under ""), for the values keep
// admits (nil: all), and returns them with the values in the order first
// seen. It streams: each Builder keeps per-task aggregates, never the
// episodes, and the episodes are read a second time only for a Builder
// some sample of which ended more than once (Builder.Again).
func ByTag(ctx context.Context, rd trajlog.Reader, flt trajlog.Filter, o Options, by string,
	keep func(string) bool) (map[string]*Builder, []string, error) {
	builders := map[string]*Builder{}
	var order []string
	err := feed(ctx, rd, flt, by, func(k string) *Builder {
		b := builders[k]
		if b == nil && (keep == nil || keep(k)) {
			b = NewBuilder(o)
			builders[k] = b
			order = append(order, k)
		}
		return b
	})
	if err != nil {
		return nil, nil, err
	}
	again := map[string]*Builder{}
	for k, b := range builders {
		if nb := b.Again(); nb != nil {
			again[k] = nb
		}
	}
	if len(again) > 0 {
		if err := feed(ctx, rd, flt, by, func(k string) *Builder { return again[k] }); err != nil {
			return nil, nil, err
		}
		maps.Copy(builders, again)
	}
	return builders, order, nil
}

// feed gives each selected episode to the builder of its by-tag
// value (none when builder returns nil).
func feed(ctx context.Context, rd trajlog.Reader, flt trajlog.Filter, by string, builder func(string) *Builder) error {
	return rd.Episodes(ctx, flt, func(r *trajlog.Record) error {
		k := ""
		if by != "" {
			k = trajlog.TagValue(r.Tags, by)
		}
		if b := builder(k); b != nil {
			b.Add(ctx, &r.Trajectory)
		}
		return nil
	})
}

// File is the name of the machine-readable report in a folder.
const File = "report.json"

// FileName is the file of ByTag's report of a tag's value: File without
// a tag (by ""), else report-VALUE.json with the value path-escaped, so
// that distinct values (a/b, c/b, the empty value of the episodes
// without the tag) never share a file and none leaves the folder.
func FileName(by, value string) string {
	if by == "" {
		return File
	}
	return "report-" + url.PathEscape(value) + ".json"
}

// Label names a tag's value in the heading of its report: the value, or
// (untagged) for the episodes without the tag.
func Label(value string) string {
	if value == "" {
		return "(untagged)"
	}
	return value
}
