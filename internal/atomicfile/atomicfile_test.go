package atomicfile

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// entries lists dir's names, to show no temporary file is left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestWriteReplacesWholeWithTheModeAsked(t *testing.T) {
	for _, tc := range []struct {
		opt  Options
		want fs.FileMode
	}{
		{Options{}, 0o600},
		{Options{Perm: 0o644, SyncDir: true}, 0o644},
		{Options{Perm: 0o640, NoSync: true}, 0o640},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.json")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := Write(path, tc.opt, func(w *bufio.Writer) error {
			_, err := w.WriteString("new")
			return err
		})
		if err != nil {
			t.Fatalf("%+v: %v", tc.opt, err)
		}
		if b, _ := os.ReadFile(path); string(b) != "new" {
			t.Errorf("%+v: file holds %q, want %q", tc.opt, b, "new")
		}
		if got := mode(t, path); got != tc.want {
			t.Errorf("%+v: mode %v, want %v", tc.opt, got, tc.want)
		}
		if names := entries(t, dir); len(names) != 1 {
			t.Errorf("%+v: dir holds %v, want only out.json", tc.opt, names)
		}
	}
}

func TestFailedWriteLeavesTheOldFileAndNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, Options{Perm: 0o644}, func(w *bufio.Writer) error {
		w.WriteString("half of the new")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the callback's", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file holds %q after a failed write, want the old %q", b, "old")
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("dir holds %v, want only out.json", names)
	}
}

func TestFailedWriteCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	err := Write(path, Options{}, func(*bufio.Writer) error { return errors.New("boom") })
	if err == nil {
		t.Fatal("a failing callback wrote the file")
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("dir holds %v, want nothing", names)
	}
}

func TestBuildFillsByName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db.sqlite")
	err := Build(path, Options{Perm: 0o644, SyncDir: true}, func(tmp string) error {
		if filepath.Dir(tmp) != dir {
			t.Errorf("temporary %s is not beside %s", tmp, path)
		}
		return os.WriteFile(tmp, []byte("built"), 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "built" {
		t.Errorf("file holds %q, want %q", b, "built")
	}
	if got := mode(t, path); got != 0o644 {
		t.Errorf("mode %v, want 0644", got)
	}
	if err := Build(path, Options{}, func(string) error { return errors.New("boom") }); err == nil {
		t.Fatal("a failing fill built the file")
	}
	if b, _ := os.ReadFile(path); string(b) != "built" {
		t.Errorf("file holds %q after a failed build, want the old %q", b, "built")
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("dir holds %v, want only db.sqlite", names)
	}
}

func TestMissingDirectoryIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent", "out.json")
	if err := Write(path, Options{}, func(*bufio.Writer) error { return nil }); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
	if err := SyncDir(filepath.Dir(path)); err == nil {
		t.Error("SyncDir of a missing directory succeeded")
	}
}
