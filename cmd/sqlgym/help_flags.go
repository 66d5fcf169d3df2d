package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// printFlags writes fs's flags as -h shows them, each as --name, the
// deprecated aliases left out: under the headings of groups when given
// (a flag in none of them under "Other"), else in one list. skip names
// groups left out; only, when not nil, the flags shown.
func printFlags(w io.Writer, fs *flag.FlagSet, groups []flagGroup, skip func(flagGroup) bool, only map[string]bool) {
	shown := func(name string) bool { return only == nil || only[name] }
	if len(groups) == 0 {
		fs.VisitAll(func(f *flag.Flag) {
			if !isAlias(f) && shown(f.Name) {
				printFlag(w, f)
			}
		})
		return
	}
	placed := map[string]bool{}
	for _, g := range groups {
		for _, name := range g.flags {
			placed[name] = true
		}
		if skip != nil && skip(g) {
			continue
		}
		var names []string
		for _, name := range g.flags {
			if shown(name) {
				names = append(names, name)
			}
		}
		printGroup(w, fs, g.title, names)
	}
	var rest []string
	fs.VisitAll(func(f *flag.Flag) {
		if !placed[f.Name] && !isAlias(f) && shown(f.Name) {
			rest = append(rest, f.Name)
		}
	})
	printGroup(w, fs, "Other", rest)
}

// printGroup writes a heading and the flags of names that fs has.
func printGroup(w io.Writer, fs *flag.FlagSet, title string, names []string) {
	var fl []*flag.Flag
	for _, name := range names {
		if f := fs.Lookup(name); f != nil {
			fl = append(fl, f)
		}
	}
	if len(fl) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	for _, f := range fl {
		printFlag(w, f)
	}
}

// printFlag writes one flag as flag.PrintDefaults does, with two dashes.
func printFlag(w io.Writer, f *flag.Flag) {
	var b strings.Builder
	fmt.Fprintf(&b, "  --%s", f.Name)
	typ, usage := flag.UnquoteUsage(f)
	if typ != "" {
		b.WriteString(" " + typ)
	}
	b.WriteString("\n    \t")
	b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
	if !isZeroDefault(f) {
		if reflect.TypeOf(f.Value).String() == "*flag.stringValue" {
			fmt.Fprintf(&b, " (default %q)", f.DefValue)
		} else {
			fmt.Fprintf(&b, " (default %v)", f.DefValue)
		}
	}
	fmt.Fprintln(w, b.String())
}

// isZeroDefault says whether f's default is its type's zero value, which
// -h leaves unsaid.
func isZeroDefault(f *flag.Flag) (zero bool) {
	typ := reflect.TypeOf(f.Value)
	var z reflect.Value
	if typ.Kind() == reflect.Pointer {
		z = reflect.New(typ.Elem())
	} else {
		z = reflect.Zero(typ)
	}
	defer func() {
		if recover() != nil {
			zero = f.DefValue == ""
		}
	}()
	return f.DefValue == z.Interface().(flag.Value).String()
}
