package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenRefusesDamagedFiles opens a real database cut at several
// lengths, an empty file, a few bytes and text: each is refused, saying
// what is wrong, before any query runs; the whole file, and one with
// bytes past its end, open.
func TestOpenRefusesDamagedFiles(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.sqlite")
	var ddl strings.Builder
	ddl.WriteString("CREATE TABLE t(x TEXT);")
	for i := 0; i < 200; i++ {
		ddl.WriteString("INSERT INTO t VALUES (printf('%0200d', 0));")
	}
	if err := Build(context.Background(), whole, ddl.String()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) <= 8192 {
		t.Fatalf("the fixture is %d bytes, want more than two pages", len(data))
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o444); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct{ name, path, want string }{
		{"cut to 4 KiB", write("cut4k.sqlite", data[:4096]), "database file cut short: 4096 bytes"},
		{"cut by one byte", write("cut1.sqlite", data[:len(data)-1]), "database file cut short"},
		{"empty", write("empty.sqlite", nil), "file is not a database: it is empty"},
		{"a few bytes", write("short.sqlite", data[:50]), "file is not a database: 50 bytes"},
		{"text", write("x.sqlite", []byte(strings.Repeat("some text\n", 20))), "does not start with the SQLite header"},
	}
	for _, tc := range tests {
		d, err := New(Config{}).Open(context.Background(), tc.path)
		if err == nil {
			d.Close()
			t.Errorf("%s: Open succeeded", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: err = %q, want it to name %q and say %q", tc.name, err, tc.path, tc.want)
		}
	}
	for _, p := range []string{whole, write("padded.sqlite", append(append([]byte{}, data...), make([]byte, 1000)...))} {
		d, err := New(Config{}).Open(context.Background(), p)
		if err != nil {
			t.Errorf("Open(%s): %v", filepath.Base(p), err)
			continue
		}
		d.Close()
	}
}
