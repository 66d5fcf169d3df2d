package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// newFlagSet returns a flag set for a subcommand that reports errors
// instead of exiting; its -h says what the command does, with an
// example, before the flags.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("sqlgym "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { printHelp(fs, name, false) }
	registerConfig(fs)
	return fs
}

// parseFlags reads the --config file into fs, then SQLGYM_* environment
// variables, then the command line: each wins over the ones before it,
// and all over the defaults. A bad value names where it came from.
// --help-all prints every flag, where -h leaves some out.
func parseFlags(fs *flag.FlagSet, args []string) error {
	registerConfig(fs)
	if wantsHelpAll(args) {
		printHelp(fs, commandName(fs), true)
		return flag.ErrHelp
	}
	if path := configPath(fs, args); path != "" {
		if err := applyConfig(fs, path); err != nil {
			return usageError{commandName(fs) + ": " + err.Error()}
		}
	}
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		key := envName(f.Name)
		v, ok := os.LookupEnv(key)
		if !ok {
			return
		}
		if a, isAlias := f.Value.(*aliasValue); isAlias {
			if _, newSet := os.LookupEnv(envName(a.name)); !newSet {
				if err := a.setEnv(key, v); err != nil {
					errs = append(errs, fmt.Errorf("%s=%q: %v", key, v, err))
				}
			}
			return
		}
		if l, isList := f.Value.(*listFlag); isList {
			l.setEnv(v)
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %v", key, v, err))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return usageError{err.Error()}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if l, ok := f.Value.(*listFlag); ok {
			l.fromEnv = true // values so far came from the environment or the config file
		}
	})
	if err := parseQuietly(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return err
		}
		return usageError{flagError(fs, err)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return nil
}

// envName is the environment variable of a flag: max-turns -> SQLGYM_MAX_TURNS.
func envName(flagName string) string {
	return "SQLGYM_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// listFlag is a repeatable flag. From the environment it takes a
// comma-separated list, from a config file a YAML list; on the command
// line each use adds one value, and the first use replaces what the
// environment or the config file gave.
type listFlag struct {
	values  []string
	fromEnv bool
}

func (l *listFlag) String() string { return strings.Join(l.values, ",") }

// Set adds one value from the command line.
func (l *listFlag) Set(v string) error {
	if l.fromEnv {
		l.values, l.fromEnv = nil, false
	}
	l.values = append(l.values, v)
	return nil
}

// setEnv takes the comma-separated list of an environment variable.
func (l *listFlag) setEnv(v string) {
	l.values = nil
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			l.values = append(l.values, part)
		}
	}
}
