package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// writeConfig writes a config file into a temporary folder.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sqlgym.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// unsetEnv removes environment variables for the test, restoring them
// after it.
func unsetEnv(t *testing.T, keys ...string) {
	for _, k := range keys {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// TestConfigPrecedence checks the order in which a flag's sources win:
// the command line over SQLGYM_* variables over the config file over the
// default, for a single value and a repeatable flag alike; and that the
// file is named by --config, --config=FILE or SQLGYM_CONFIG.
func TestConfigPrecedence(t *testing.T) {
	cfg := writeConfig(t, "max-turns: 3\ndataset:\n  - a=spider:/a\n  - b=spider:/b\ninsecure: true\n")
	for _, tt := range []struct {
		env                   map[string]string
		args                  []string
		turns, data, insecure string
	}{
		{nil, nil, "8", "", "false"},
		{nil, []string{"--config", cfg}, "3", "a=spider:/a,b=spider:/b", "true"},
		{nil, []string{"--config=" + cfg}, "3", "a=spider:/a,b=spider:/b", "true"},
		{map[string]string{"SQLGYM_CONFIG": cfg}, nil, "3", "a=spider:/a,b=spider:/b", "true"},
		{map[string]string{"SQLGYM_MAX_TURNS": "4", "SQLGYM_DATASET": "c=spider:/c"}, []string{"--config", cfg}, "4", "c=spider:/c", "true"},
		{map[string]string{"SQLGYM_MAX_TURNS": "4", "SQLGYM_INSECURE": "false"},
			[]string{"--max-turns", "5", "--config", cfg, "--dataset", "d=spider:/d"}, "5", "d=spider:/d", "false"},
		{nil, []string{"--insecure=false", "--config", cfg}, "3", "a=spider:/a,b=spider:/b", "false"},
	} {
		unsetEnv(t, "SQLGYM_CONFIG", "SQLGYM_MAX_TURNS", "SQLGYM_DATASET", "SQLGYM_INSECURE")
		for k, v := range tt.env {
			t.Setenv(k, v)
		}
		fs, _ := newServeFlags(io.Discard)
		if err := parseFlags(fs, tt.args); err != nil {
			t.Fatalf("env %v, args %v: %v", tt.env, tt.args, err)
		}
		got := [3]string{fs.Lookup("max-turns").Value.String(), fs.Lookup("dataset").Value.String(), fs.Lookup("insecure").Value.String()}
		if want := [3]string{tt.turns, tt.data, tt.insecure}; got != want {
			t.Errorf("env %v, args %v: max-turns, dataset, insecure = %q, want %q", tt.env, tt.args, got, want)
		}
	}
}

// TestConfigSetsEveryFlag writes a config file with every flag of serve
// as a key, each set to its default in the form -h shows: all are
// accepted, and the values come out as they went in.
func TestConfigSetsEveryFlag(t *testing.T) {
	fs, _ := newServeFlags(io.Discard)
	var b strings.Builder
	want := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if isAlias(f) || f.Name == configFlag {
			return
		}
		v := f.Value.String()
		if f.Name == "pg-schema-conns" {
			v = "24" // a flag.Func: its String is empty
		}
		want[f.Name] = v
		if _, list := f.Value.(*listFlag); list {
			fmt.Fprintf(&b, "%s: [%s]\n", f.Name, v)
			return
		}
		fmt.Fprintf(&b, "%s: %q\n", f.Name, v)
	})
	if len(want) < 70 {
		t.Fatalf("serve has %d flags", len(want))
	}
	cfg := writeConfig(t, b.String())
	fs, _ = newServeFlags(io.Discard)
	if err := parseFlags(fs, []string{"--config", cfg}); err != nil {
		t.Fatalf("a config of every flag: %v", err)
	}
	for name, v := range want {
		if got := fs.Lookup(name).Value.String(); got != v && name != "pg-schema-conns" {
			t.Errorf("--%s: %q after the config, want %q", name, got, v)
		}
	}
}

// TestConfigErrors checks that each mistake in a config file is a usage
// error naming the file, the line and the key, and what was wrong.
func TestConfigErrors(t *testing.T) {
	unsetEnv(t, "SQLGYM_CONFIG")
	for _, tt := range []struct {
		cmd, text string
		want      []string
	}{
		{"serve", "max-turns: 3\nmax-turn: 4\n", []string{":2: unknown key \"max-turn\" (no flag --max-turn); did you mean max-turns?"}},
		{"serve", "zzzzzz: 1\n", []string{":1: unknown key \"zzzzzz\"", "'sqlgym serve --help-all' lists them"}},
		{"serve", "\nmax-turns: many\n", []string{":2: max-turns: invalid value \"many\" (want int)"}},
		{"serve", "query-timeout: 5\n", []string{":1: query-timeout: invalid value \"5\" (want duration)"}},
		{"serve", "insecure: yes\n", []string{":1: insecure: invalid value \"yes\" (want true or false)"}},
		{"serve", "addr:\n  - a\n  - b\n", []string{":1: addr: --addr takes one value, not a list"}},
		{"serve", "max-turns:\n  a: 1\n", []string{":1: max-turns: want a value (line 2 has a mapping)"}},
		{"serve", "dataset:\n  - a: 1\n", []string{":1: dataset: want a value (line 2 has a mapping)"}},
		{"serve", "max-turns:\n", []string{":1: max-turns: want a value (line 1 has a null (no value))"}},
		{"serve", "max-turns: 3\nmax-turns: 4\n", []string{":2: key \"max-turns\" given twice (first on line 1)"}},
		{"serve", "- max-turns\n", []string{":1: want a mapping of flag names to values"}},
		{"serve", "max-turns: [3\n", []string{"--config ", "yaml:", "line"}},
		{"serve", "config: other.yaml\n", []string{":1: unknown key \"config\""}},
		{"serve", "max-turn: 4\nrow-limt: 5\n", []string{":1: unknown key \"max-turn\"", ":2: unknown key \"row-limt\""}},
		{"rollout", "concurrency: 4\n", []string{":1: key \"concurrency\" is a deprecated name: write workers"}},
	} {
		cfg := writeConfig(t, tt.text)
		_, _, err := sqlgym(t, tt.cmd, "--config", cfg)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("%s with %q: %v, want a usage error", tt.cmd, tt.text, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.cmd+": ") || !strings.Contains(err.Error(), cfg) {
			t.Errorf("%s with %q: %q does not name the command and the file", tt.cmd, tt.text, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s with %q: %q, want %q", tt.cmd, tt.text, err, w)
			}
		}
	}
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	if _, _, err := sqlgym(t, "serve", "--config", missing); err == nil || exitCode(err) != 2 ||
		!strings.Contains(err.Error(), "--config: open "+missing+": no such file or directory") {
		t.Errorf("a missing config file: %v", err)
	}
}

// TestEveryCommandTakesAConfig checks that each command reads --config:
// a key it has is accepted (-h then prints its help), one it has not is
// refused naming the key.
func TestEveryCommandTakesAConfig(t *testing.T) {
	unsetEnv(t, "SQLGYM_CONFIG")
	for _, c := range commands() {
		args := []string{c.name}
		switch c.name {
		case "version":
			continue
		case "log":
			args = []string{"log", "verify"}
		case "testsuite":
			args = []string{"testsuite", "build"}
		}
		good := writeConfig(t, "")
		if key, ok := map[string]string{"serve": "log-level: warn", "mcp": "log-level: warn", "eval": "workers: 2",
			"rollout": "workers: 2", "import": "gold-timeout: 10s"}[c.name]; ok {
			good = writeConfig(t, key+"\n")
		}
		if _, _, err := sqlgym(t, append(args, "--config", good, "-h")...); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%v --config with a key it has: %v", args, err)
		}
		bad := writeConfig(t, "no-such-flag: 1\n")
		if _, _, err := sqlgym(t, append(args, "--config", bad)...); err == nil || !strings.Contains(err.Error(), bad+":1: unknown key \"no-such-flag\"") {
			t.Errorf("%v --config with an unknown key: %v", args, err)
		}
	}
}

// TestExampleConfigServesTheDemo runs serve with the example config of
// the repository and nothing else on the command line (SQLGYM_ADDR picks
// a free port): it serves the embedded demo with the config's settings.
func TestExampleConfigServesTheDemo(t *testing.T) {
	example := filepath.Join(binserver.ModuleRoot(t), "examples", "config", "serve.yaml")
	t.Chdir(t.TempDir()) // the example's data-dir is relative
	unsetEnv(t, "SQLGYM_CONFIG")
	t.Setenv("SQLGYM_ADDR", "127.0.0.1:0")
	url, stderr, cancel, done := runInProcess(t, []string{"serve", "--config", example})
	defer func() {
		if err := stopped(t, cancel, done); err != nil {
			t.Errorf("serve: %v\n%s", err, stderr.String())
		}
	}()
	ctx := context.Background()
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Datasets) != 1 || info.Datasets[0].Name != "demo" || info.Limits.MaxTurns != 6 || len(info.Tools) != 5 {
		t.Errorf("served %+v, max turns %d, %d tools; want the demo, 6 turns and the config's 5 tools", info.Datasets, info.Limits.MaxTurns, len(info.Tools))
	}
	if _, err := os.Stat(filepath.Join("sqlgym-data")); err != nil {
		t.Errorf("the config's data-dir: %v", err)
	}
	if !strings.Contains(stderr.String(), `"level":"info"`) {
		t.Errorf("the log is not the config's json format:\n%.500s", stderr.String())
	}
}

// TestConfigPath checks which --config a command line names: the last
// one, in either form, found past flags with values; none after the
// flags end; else SQLGYM_CONFIG.
func TestConfigPath(t *testing.T) {
	t.Setenv("SQLGYM_CONFIG", "env.yaml")
	fs, _ := newServeFlags(io.Discard)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "env.yaml"},
		{[]string{"--config", "a.yaml"}, "a.yaml"},
		{[]string{"-config=a.yaml", "--config", "b.yaml"}, "b.yaml"},
		{[]string{"--insecure", "--token", "--config", "--config=c.yaml"}, "c.yaml"},
		{[]string{"--token", "--config"}, "env.yaml"},
		{[]string{"--max-turns", "3", "--", "--config", "d.yaml"}, "env.yaml"},
		{[]string{"--config", ""}, ""},
	} {
		if got := configPath(fs, tt.args); got != tt.want {
			t.Errorf("configPath(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
