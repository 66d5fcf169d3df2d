package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestMisspelledFlag checks that an unknown flag is one line naming the
// nearest flag, not Go's terse line followed by the whole usage.
func TestMisspelledFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--max-turn", "3"}, "serve: unknown flag --max-turn; did you mean --max-turns?"},
		{[]string{"serve", "--adr", "x"}, "did you mean --addr?"},
		{[]string{"replay", "--data-dri", "x"}, "did you mean --data-dir?"},
		{[]string{"log", "verify", "--datadir", "x"}, "log verify: unknown flag --datadir; did you mean --data-dir?"},
		{[]string{"export", "--zzzzzz"}, "export: unknown flag --zzzzzz ('sqlgym export -h' lists the flags)"},
	} {
		_, stderr, err := sqlgym(t, tt.args...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("sqlgym %v: %v (exit %d), want a usage error with %q", tt.args, err, exitCode(err), tt.want)
		}
		if stderr != "" {
			t.Errorf("sqlgym %v printed more than its error:\n%s", tt.args, stderr)
		}
	}
}

// TestSubcommandHelp checks that each subcommand's -h starts with what it
// does and an example, and that each example uses only flags it has.
func TestSubcommandHelp(t *testing.T) {
	for _, c := range commands() {
		if c.name == "version" {
			continue // takes no flags
		}
		args := []string{c.name, "-h"}
		switch c.name {
		case "log":
			args = []string{"log", "verify", "-h"}
		case "testsuite":
			args = []string{"testsuite", "build", "-h"}
		}
		_, help, err := sqlgym(t, args...)
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("sqlgym %v: %v, want flag.ErrHelp", args, err)
		}
		if !strings.HasPrefix(help, "sqlgym "+strings.Join(args[:len(args)-1], " ")+": "+c.short+"\n\nexample:\n  sqlgym "+c.name) {
			t.Errorf("sqlgym %v starts:\n%.300s", args, help)
		}
		for _, ex := range c.examples {
			for _, m := range regexp.MustCompile(`--([a-z-]+)`).FindAllStringSubmatch(ex, -1) {
				if !strings.Contains(help, "\n  --"+m[1]+" ") && !strings.Contains(help, "\n  --"+m[1]+"\n") {
					t.Errorf("%s: the example %q uses --%s, which it does not have", c.name, ex, m[1])
				}
			}
		}
	}
}

// TestHelpNamesImportTargets checks that help says import targets
// MySQL/MariaDB as well as PostgreSQL.
func TestHelpNamesImportTargets(t *testing.T) {
	stdout, stderr, err := sqlgym(t, "help")
	if err != nil {
		t.Fatal(err)
	}
	stdout += stderr
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "import ") {
			if !strings.Contains(line, "PostgreSQL") || !strings.Contains(line, "MySQL/MariaDB") {
				t.Errorf("help's import line names not both targets: %q", line)
			}
			return
		}
	}
	t.Fatalf("help lists no import line:\n%s", stdout)
}

// helpFlags are the flag names a help text lists.
func helpFlags(help string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`).FindAllStringSubmatch(help, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestServeHelpIsShort checks that serve -h lists the flags most
// deployments set, 25 to 35 of them, under headings, and says that
// --help-all lists the rest; and that --help-all lists every flag of
// serve, each once, none under "Other".
func TestServeHelpIsShort(t *testing.T) {
	_, short, err := sqlgym(t, "serve", "-h")
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("serve -h: %v", err)
	}
	_, all, err := sqlgym(t, "serve", "--help-all")
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("serve --help-all: %v", err)
	}
	fs, _ := newServeFlags(io.Discard)
	total := countFlags(fs)
	shortFlags, allFlags := helpFlags(short), helpFlags(all)
	if n := len(shortFlags); n < 25 || n > 35 || n != len(serveEssentials) {
		t.Errorf("serve -h lists %d flags, want the %d of serveEssentials, 25 to 35", n, len(serveEssentials))
	}
	if !strings.Contains(short, "'sqlgym serve --help-all' lists them all") ||
		!strings.Contains(short, fmt.Sprintf("\n%d more flags", total-len(shortFlags))) {
		t.Errorf("serve -h does not point to --help-all:\n%s", short)
	}
	for _, name := range serveEssentials {
		if fs.Lookup(name) == nil {
			t.Errorf("serveEssentials names --%s, which serve does not have", name)
		}
	}
	seen := map[string]bool{}
	for _, name := range allFlags {
		if seen[name] {
			t.Errorf("serve --help-all lists --%s twice", name)
		}
		seen[name] = true
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !isAlias(f) && !seen[f.Name] {
			t.Errorf("serve --help-all leaves out --%s", f.Name)
		}
	})
	if len(allFlags) != total || strings.Contains(all, "\nOther:\n") || strings.Contains(all, "more flags") {
		t.Errorf("serve --help-all lists %d flags of %d:\n%s", len(allFlags), total, all)
	}
	if _, mcp, _ := sqlgym(t, "mcp", "-h"); len(helpFlags(mcp)) < 40 {
		t.Errorf("mcp -h lists %d flags: only serve's -h is shortened", len(helpFlags(mcp)))
	}
}
