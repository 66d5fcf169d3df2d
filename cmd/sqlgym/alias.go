package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// aliasValue is a deprecated flag name kept working: it sets the flag
// that replaced it, and says so once on standard error. It is left out
// of -h and of the suggestions for a misspelt flag.
type aliasValue struct {
	target    flag.Value
	old, name string    // the deprecated name and the flag it stands for
	cmd       string    // the subcommand, for the deprecation line
	w         io.Writer // standard error
	warned    bool
}

// deprecatedAlias registers old on fs as a hidden alias of the flag
// name, which must already be registered.
func deprecatedAlias(fs *flag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	if f == nil {
		panic("deprecatedAlias: no flag --" + name)
	}
	a := &aliasValue{target: f.Value, old: old, name: name, cmd: commandName(fs), w: fs.Output()}
	fs.Var(a, old, "deprecated: use --"+name)
}

// Set sets the new flag, after the deprecation line the first time.
func (a *aliasValue) Set(v string) error {
	a.warn("--" + a.old + " is deprecated; use --" + a.name)
	return a.target.Set(v)
}

// setEnv sets the new flag from the alias's environment variable.
func (a *aliasValue) setEnv(key, v string) error {
	a.warn(key + " is deprecated; use " + envName(a.name))
	if l, ok := a.target.(*listFlag); ok {
		l.setEnv(v)
		return nil
	}
	return a.target.Set(v)
}

func (a *aliasValue) warn(msg string) {
	if a.warned {
		return
	}
	a.warned = true
	fmt.Fprintf(a.w, "sqlgym %s: %s\n", a.cmd, msg)
}

func (a *aliasValue) String() string {
	if a == nil || a.target == nil {
		return ""
	}
	return a.target.String()
}

// IsBoolFlag lets a bool flag's alias be given without a value.
func (a *aliasValue) IsBoolFlag() bool {
	b, ok := a.target.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// isAlias says whether f is a deprecated name.
func isAlias(f *flag.Flag) bool {
	_, ok := f.Value.(*aliasValue)
	return ok
}

// commandName is the subcommand of a flag set named "sqlgym NAME".
func commandName(fs *flag.FlagSet) string {
	return strings.TrimPrefix(fs.Name(), "sqlgym ")
}
