package imagetest

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// loadImage reads the one image of an OCI layout.
func loadImage(t *testing.T, dir string) v1.Image {
	t.Helper()
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatalf("the image layout: %v", err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 {
		t.Fatalf("the layout holds %d manifests, want 1", len(m.Manifests))
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// unpack writes the image's file system (its layers flattened) into
// rootfs, with the owners and modes the layers give.
func unpack(t *testing.T, img v1.Image, rootfs string) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("the image's layers: %v", err)
		}
		if err := unpackEntry(tr, h, rootfs); err != nil {
			t.Fatalf("unpack %s: %v", h.Name, err)
		}
	}
}

// unpackEntry writes one entry of a layer under rootfs.
func unpackEntry(r io.Reader, h *tar.Header, rootfs string) error {
	name := filepath.Clean("/" + h.Name)
	dst := filepath.Join(rootfs, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	mode := h.FileInfo().Mode()
	switch h.Typeflag {
	case tar.TypeDir:
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
	case tar.TypeReg:
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	case tar.TypeSymlink:
		return os.Symlink(h.Linkname, dst)
	default:
		return fmt.Errorf("entry type %q is not unpacked here", h.Typeflag)
	}
	if err := os.Lchown(dst, h.Uid, h.Gid); err != nil {
		return err
	}
	return os.Chmod(dst, mode.Perm()|mode&(os.ModeSticky|os.ModeSetuid|os.ModeSetgid))
}

// owner reads the image's USER, "UID:GID" in numbers.
func owner(t *testing.T, c v1.Config) (uid, gid int) {
	t.Helper()
	u, g, ok := strings.Cut(c.User, ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("the image's USER is %q, want UID:GID in numbers", c.User)
	}
	return uid, gid
}

// writeSpec writes the bundle's config.json: runc spec's default, made to
// run the image's entry point and command as its user, with its
// environment (env added after it) and working directory; the root file
// system read-only, data bound at each of the image's volumes, a tmpfs at
// /tmp; the host's network namespace, so that the test reaches the port;
// no capabilities; and no resources section (no cgroup limits, which
// this machine's cgroups do not take).
func writeSpec(t *testing.T, bundle string, c v1.Config, data string, env []string) {
	t.Helper()
	if out, err := exec.Command("runc", "spec", "--bundle", bundle).CombinedOutput(); err != nil {
		t.Fatalf("runc spec: %v\n%s", err, out)
	}
	path := filepath.Join(bundle, "config.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	uid, gid := owner(t, c)
	process := spec["process"].(map[string]any)
	process["terminal"] = false
	process["args"] = append(append([]string{}, c.Entrypoint...), c.Cmd...)
	process["user"] = map[string]any{"uid": uid, "gid": gid}
	process["env"] = append(append([]string{}, c.Env...), env...)
	process["cwd"] = c.WorkingDir
	delete(process, "capabilities")
	spec["root"] = map[string]any{"path": "rootfs", "readonly": true}
	mounts := spec["mounts"].([]any)
	for vol := range c.Volumes {
		mounts = append(mounts, map[string]any{"destination": vol, "type": "bind", "source": data, "options": []string{"rbind", "rw"}})
	}
	mounts = append(mounts, map[string]any{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
		"options": []string{"nosuid", "nodev", "mode=1777"}})
	spec["mounts"] = mounts
	linux := spec["linux"].(map[string]any)
	delete(linux, "resources")
	var namespaces []any
	for _, ns := range linux["namespaces"].([]any) {
		if ns.(map[string]any)["type"] != "network" {
			namespaces = append(namespaces, ns)
		}
	}
	linux["namespaces"] = namespaces
	if b, err = json.MarshalIndent(spec, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
