package atomicfile

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// holdsOnly checks that path holds want and that its directory holds
// nothing else: no temporary file left behind.
func holdsOnly(t *testing.T, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s holds %q (%v), want %q", path, b, err, want)
	}
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("%d entries beside %s, want none", len(ents)-1, filepath.Base(path))
	}
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
		holdsOnly(t, path, "new")
		if got := mode(t, path); got != tc.want {
			t.Errorf("%+v: mode %v, want %v", tc.opt, got, tc.want)
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
	holdsOnly(t, path, "old")
}

func TestFailedWriteCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	err := Write(path, Options{}, func(*bufio.Writer) error { return errors.New("boom") })
	if err == nil {
		t.Fatal("a failing callback wrote the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("dir holds %d entries, want none", len(ents))
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
	holdsOnly(t, path, "built")
	if got := mode(t, path); got != 0o644 {
		t.Errorf("mode %v, want 0644", got)
	}
	if err := Build(path, Options{}, func(string) error { return errors.New("boom") }); err == nil {
		t.Fatal("a failing fill built the file")
	}
	holdsOnly(t, path, "built")
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
