package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestSchemasCommand runs sqlgym schemas from an empty working folder:
// what it prints and writes comes from the binary alone.
func TestSchemasCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	step, err := schemas.JSONSchema("episode.step.params")
	if err != nil {
		t.Fatal(err)
	}
	all := schemas.JSONSchemaNames()
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		stdout   []byte   // nil: not checked
		files    []string // schema names expected in the out folder "out"
		wantErr  string
		exitCode int
	}{
		{name: "list", args: []string{"--list"}, stdout: []byte(strings.Join(all, "\n") + "\n")},
		{name: "one by name", args: []string{"episode.step.params"}, stdout: step},
		{name: "one by file name", args: []string{"episode.step.params.schema.json"}, stdout: step},
		{name: "all into a folder", args: []string{"--out", "out"}, stdout: []byte{}, files: all},
		{name: "all into a folder, from the environment", env: map[string]string{"SQLGYM_OUT": "out"}, files: all},
		{name: "one into a folder, name first", args: []string{"trajectory", "--out", "out"}, files: []string{"trajectory"}},
		{name: "one into a folder, flag first", args: []string{"--out=out", "tool"}, files: []string{"tool"}},
		{name: "nothing asked", wantErr: "give a NAME, --list or --out DIR", exitCode: 2},
		{name: "unknown name", args: []string{"episode.step"}, wantErr: "episode.step.params", exitCode: 2},
		{name: "two names", args: []string{"tool", "trajectory"}, wantErr: "one NAME at most", exitCode: 2},
		{name: "list with a name", args: []string{"--list", "tool"}, wantErr: "--list goes alone", exitCode: 2},
		{name: "unknown flag", args: []string{"--pretty"}, wantErr: "unknown flag --pretty", exitCode: 2},
		{name: "out under a file", args: []string{"--out", "file/out"}, wantErr: "schemas: mkdir", exitCode: 1},
	}
	if err := os.WriteFile("file", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll("out")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append([]string{"schemas"}, tt.args...), &stdout, &stderr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || exitCode(err) != tt.exitCode {
					t.Fatalf("error = %v (exit %d), want one containing %q (exit %d)", err, exitCode(err), tt.wantErr, tt.exitCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("sqlgym schemas %v: %v\n%s", tt.args, err, stderr.String())
			}
			if tt.stdout != nil && !bytes.Equal(stdout.Bytes(), tt.stdout) {
				t.Errorf("stdout = %.200q..., want %.200q...", stdout.String(), tt.stdout)
			}
			checkOutFolder(t, "out", tt.files)
		})
	}
}

// checkOutFolder checks dir holds exactly the named schemas, as embedded.
func checkOutFolder(t *testing.T, dir string, names []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if len(names) == 0 {
		if err == nil {
			t.Errorf("%s was written", dir)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, strings.TrimSuffix(e.Name(), schemas.JSONSchemaSuffix))
	}
	slices.Sort(got) // file names sort trajectory.line.schema.json before trajectory.schema.json
	if want := slices.Sorted(slices.Values(names)); !slices.Equal(got, want) {
		t.Fatalf("%s holds %v, want %v", dir, got, want)
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name+schemas.JSONSchemaSuffix))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := schemas.JSONSchema(name)
		if !bytes.Equal(b, want) || !json.Valid(b) {
			t.Errorf("%s/%s.schema.json differs from the embedded schema", dir, name)
		}
	}
}
