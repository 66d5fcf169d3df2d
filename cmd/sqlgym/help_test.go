package main

import (
	"errors"
	"flag"
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
