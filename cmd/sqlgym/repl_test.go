package main

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReplTranscript runs sqlgym repl as a user would, with no --url (an
// in-process server on the demo dataset), on the example transcript's
// commands, and checks that it prints the recorded transcript.
func TestReplTranscript(t *testing.T) {
	in, err := os.Open("../../examples/repl/demo.sqlgym")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	want, err := os.ReadFile("../../examples/repl/demo.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	args := []string{"--echo", "--history", "", "--data-dir", t.TempDir()}
	if err := replMain(context.Background(), args, in, &out, &errOut); err != nil {
		t.Fatalf("repl: %v\nstderr:\n%s", err, errOut.String())
	}
	got := regexp.MustCompile(`ep_[0-9a-f]{8,}`).ReplaceAllString(out.String(), "ep_<id>")
	got = regexp.MustCompile(`\d+\.\d\d ms\)`).ReplaceAllString(got, "<t> ms)")
	if got != string(want) {
		t.Errorf("sqlgym repl printed a different transcript (go test ./internal/app/repl -run TestTranscript -update records it):\n%s", got)
	}
	if errOut.Len() > 0 {
		t.Errorf("the in-process server logged at its default level (warn):\n%s", errOut.String())
	}
}

// TestReplURL connects sqlgym repl to a running server by --url and
// --token, and checks that a wrong token is refused.
func TestReplURL(t *testing.T) {
	fs := newFlagSet("repl", &strings.Builder{})
	var f replFlags
	f.stack.register(fs)
	if err := parseFlags(fs, []string{"--data-dir", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	f.idleTimeout = 1e9
	ctx := context.Background()
	log, err := newLogger("console", "error", &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	err = withLocalServer(ctx, &f, log, func(url, token string, _ *serveStack) error {
		var out strings.Builder
		args := []string{"--url", url, "--token", token, "--history", ""}
		if err := replMain(ctx, args, strings.NewReader(".tasks 1\n"), &out, &out); err != nil {
			return err
		}
		if !strings.Contains(out.String(), "demo/library-001") || !strings.Contains(out.String(), "(1 of 64 tasks)") {
			t.Errorf("repl --url printed:\n%s", out.String())
		}
		err := replMain(ctx, []string{"--url", url, "--token", "wrong"}, strings.NewReader(""), &out, &out)
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("a wrong token gave %v, want an HTTP 401 error", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReplUsage(t *testing.T) {
	var stderr strings.Builder
	err := replMain(context.Background(), []string{"--idle-timeout", "0"}, strings.NewReader(""), &stderr, &stderr)
	var ue usageError
	if !errors.As(err, &ue) {
		t.Errorf("--idle-timeout 0 gave %v, want a usage error", err)
	}
}
