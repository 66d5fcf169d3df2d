package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sqlgym/sqlgym/schemas"
)

// Set is the tools offered to the model, in the registry's order, submit
// always among them. The zero Set is protocol v1's default set. A Set is
// a value, immutable and safe to share.
type Set struct {
	entries []*entry
	shared  *sharedDefs // for SharedDefinitions; nil in the zero Set, which uses DefaultSet's
}

// sharedDefs are a set's definitions, built on first use.
type sharedDefs struct {
	once sync.Once
	defs []schemas.Tool
}

// DefaultSet is protocol v1's tools: inspect_schema, execute_sql, submit.
func DefaultSet() Set {
	defaultOnce.Do(func() { defaultSet, _ = NewSet(DefaultNames()) }) // the default names are registered
	return defaultSet
}

// defaultSet is built once: the zero Set stands for it on every step.
var (
	defaultOnce sync.Once
	defaultSet  Set
)

// AllSet is every registered tool.
func AllSet() Set { return Set{entries: registry(), shared: new(sharedDefs)} }

// NewSet returns the set of the named tools, submit added when left out,
// in the registry's order. An unknown or repeated name is an error that
// names the tools there are.
func NewSet(names []string) (Set, error) {
	return AllSet().Subset(names)
}

// Subset returns the set of the named tools, each of which must be in s;
// submit is added when left out. An empty list is an error: an episode
// with submit alone could not look at its database, so it has to be asked
// for by name.
func (s Set) Subset(names []string) (Set, error) {
	if len(names) == 0 {
		return Set{}, fmt.Errorf("no tool named; the tools are %s", strings.Join(s.Names(), ", "))
	}
	want := map[string]bool{schemas.ToolSubmit: true}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if !s.Has(n) {
			return Set{}, fmt.Errorf("unknown tool %q; the tools are %s", n, strings.Join(s.Names(), ", "))
		}
		if want[n] && n != schemas.ToolSubmit {
			return Set{}, fmt.Errorf("tool %q is named twice", n)
		}
		want[n] = true
	}
	out := Set{shared: new(sharedDefs)}
	for _, e := range s.all() {
		if want[e.name()] {
			out.entries = append(out.entries, e)
		}
	}
	return out, nil
}

// all is the set's entries, the default set's for the zero Set.
func (s Set) all() []*entry {
	if s.entries == nil {
		return DefaultSet().entries
	}
	return s.entries
}

// Names returns the set's tool names in order.
func (s Set) Names() []string {
	var out []string
	for _, e := range s.all() {
		out = append(out, e.name())
	}
	return out
}

// Has reports whether the set offers the named tool.
func (s Set) Has(name string) bool {
	return slices.ContainsFunc(s.all(), func(e *entry) bool { return e.name() == name })
}

// IsDefault reports whether the set is protocol v1's default set.
func (s Set) IsDefault() bool { return slices.Equal(s.Names(), DefaultNames()) }

// Definitions returns the set's tools in the OpenAI function-calling
// shape, in order. The caller owns the returned slice.
func (s Set) Definitions() []schemas.Tool {
	var out []schemas.Tool
	for _, e := range s.all() {
		out = append(out, e.definition())
	}
	return out
}

// SharedDefinitions returns what Definitions does, built once per set
// and shared by every caller: the caller must not change the slice or the
// definitions in it.
func (s Set) SharedDefinitions() []schemas.Tool {
	if s.entries == nil {
		return DefaultSet().SharedDefinitions()
	}
	if s.shared == nil { // a set made without its cache (Recorded's)
		return s.Definitions()
	}
	s.shared.once.Do(func() { s.shared.defs = s.Definitions() })
	return s.shared.defs
}

// Recorded is the set a trajectory's tools field names: protocol v1's
// default set when it names none (as records of default episodes do). A
// name this version does not know is kept out.
func Recorded(names []string) Set {
	var out Set
	for _, n := range names {
		if e, ok := lookup(n); ok {
			out.entries = append(out.entries, e)
		}
	}
	return out
}

// Invocation is a decoded call: its tool and its arguments.
type Invocation struct {
	e    *entry
	Args any // *InspectSchemaArgs, *ExecuteSQLArgs, *SubmitArgs, ...
}

// Name is the tool called.
func (i Invocation) Name() string { return i.e.name() }

// Key identifies the call for repeat detection: the tool and its
// arguments, SQL normalized so spacing and case of keywords do not matter.
func (i Invocation) Key() string { return i.e.key(i.e.keyPrefix, i.Args) }

// Run runs a decoded call against t. A tool that ends the episode
// (submit) runs nothing: its Result.Submitted holds the SQL to score.
func (r *Runner) Run(ctx context.Context, t Target, i Invocation) (Result, error) {
	return i.e.run(ctx, r, t, i.Args)
}
