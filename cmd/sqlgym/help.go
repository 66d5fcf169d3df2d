package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agnivade/levenshtein"
)

// printHelp is a subcommand's -h: what it does, an example, then its
// flags; all of them with --help-all, else those most users set where
// the command has such a list (serve).
func printHelp(fs *flag.FlagSet, name string, all bool) {
	w := fs.Output()
	only := essentialFlags(name)
	if all {
		only = nil
	}
	c, ok := lookupCommand(name)
	if ok {
		fmt.Fprintf(w, "sqlgym %s: %s\n\nexample:\n", name, c.short)
		for _, ex := range c.examples {
			fmt.Fprintf(w, "  %s\n", ex)
		}
		if only != nil {
			fmt.Fprintf(w, "\nthe flags most deployments set, %d of %d ('sqlgym %s --help-all' lists them all), "+
				"each also an SQLGYM_* environment variable and a --config key:\n", len(only), countFlags(fs), name)
		} else {
			fmt.Fprintln(w, "\nflags (each also an SQLGYM_* environment variable and a --config key):")
		}
	}
	var skip func(flagGroup) bool
	if u := fs.Lookup("url"); name == "repl" && u != nil && u.Value.String() != "" {
		fmt.Fprintln(w, "\n(with --url the in-process server's flags do not apply and are left out; repl -h without --url lists them)")
		skip = func(g flagGroup) bool { return g.inProcess }
	}
	printFlags(w, fs, helpGroups(name), skip, only)
	if only != nil {
		fmt.Fprintf(w, "\n%d more flags (bounds under load, pools, caches, transport timeouts, the value index's tuning): "+
			"'sqlgym %s --help-all' lists every flag.\n", countFlags(fs)-len(only), name)
	}
}

// wantsHelpAll says whether the command line asks for --help-all.
func wantsHelpAll(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--help-all" || a == "-help-all" {
			return true
		}
	}
	return false
}

// countFlags is the number of fs's flags, the deprecated names left out.
func countFlags(fs *flag.FlagSet) int {
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		if !isAlias(f) {
			n++
		}
	})
	return n
}

// lookupCommand finds a command by its name, or by its first word ("log verify").
func lookupCommand(name string) (command, bool) {
	first, _, _ := strings.Cut(name, " ")
	for _, c := range commands() {
		if c.name == first {
			return c, true
		}
	}
	return command{}, false
}

// parseQuietly parses args into fs without printing: the caller reports
// errors as a line of its own, and prints the help for -h.
func parseQuietly(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() { fs.SetOutput(out); fs.Usage = usage }()
	return fs.Parse(args)
}

const undefinedFlag = "flag provided but not defined: -"

// flagError is a parse error as one line: an unknown flag with the
// nearest one suggested, and where to find them all.
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	hint := fmt.Sprintf("('%s -h' lists the flags)", fs.Name())
	name, unknown := strings.CutPrefix(msg, undefinedFlag)
	if !unknown {
		return fmt.Sprintf("%s: %s %s", strings.TrimPrefix(fs.Name(), "sqlgym "), msg, hint)
	}
	if near := nearestFlag(fs, name); near != "" {
		return fmt.Sprintf("%s: unknown flag --%s; did you mean --%s? %s", strings.TrimPrefix(fs.Name(), "sqlgym "), name, near, hint)
	}
	return fmt.Sprintf("%s: unknown flag --%s %s", strings.TrimPrefix(fs.Name(), "sqlgym "), name, hint)
}

// nearestFlag is the flag of fs closest to name by edit distance, if one
// is close enough to be a misspelling of it.
func nearestFlag(fs *flag.FlagSet, name string) string {
	name = strings.TrimLeft(name, "-")
	best, bestDist := "", len(name)/3+2 // a third of the name, and a transposition
	fs.VisitAll(func(f *flag.Flag) {
		if isAlias(f) {
			return
		}
		d := levenshtein.ComputeDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1) // a prefix of a flag: --max-ep for --max-episodes
		}
		if d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	return best
}
