package main

import (
	"archive/tar"
	"bytes"
	"embed"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// rootfs holds the files the image takes as they are (the Dockerfile
// copies the same ones): /etc/passwd and /etc/group with the sqlgym user.
//
//go:embed rootfs
var rootfs embed.FS

// epoch is the time of every file and of the image: the same inputs make
// the same image, digest and all.
var epoch = time.Unix(0, 0).UTC()

// entry is one file or directory of the image's layer.
type entry struct {
	name     string // absolute path in the image
	mode     int64
	owner    int
	contents []byte // nil for a directory
}

// build assembles the image: one layer holding the binary read from
// binPath, the CA certificates read from certsPath, the user's files, the
// data directory owned by the user and a /tmp, and imageConfig.
func build(binPath, certsPath, version string) (v1.Image, error) {
	bin, err := os.ReadFile(binPath)
	if err != nil {
		return nil, fmt.Errorf("the binary: %w", err)
	}
	certs, err := os.ReadFile(certsPath)
	if err != nil {
		return nil, fmt.Errorf("the CA certificates: %w", err)
	}
	passwd, _ := rootfs.ReadFile("rootfs/etc/passwd")
	group, _ := rootfs.ReadFile("rootfs/etc/group")
	entries := []entry{
		{name: "/etc/passwd", mode: 0o644, contents: passwd},
		{name: "/etc/group", mode: 0o644, contents: group},
		{name: caCerts, mode: 0o644, contents: certs},
		{name: binary, mode: 0o755, contents: bin},
		{name: dataDir, mode: 0o755, owner: uid},
		{name: "/tmp", mode: 0o1777},
	}
	layerTar, err := layerOf(entries)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: epoch}, CreatedBy: "internal/app/imagebuild (scripts/image)"}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS, cf.Created = "amd64", "linux", v1.Time{Time: epoch}
	cf.Config = imageConfig(version)
	return mutate.ConfigFile(img, cf)
}

// layerOf writes entries as a tar stream, each with its parent
// directories before it.
func layerOf(entries []entry) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	seen := map[string]bool{}
	for _, e := range entries {
		if err := writeParents(tw, path.Dir(e.name), seen); err != nil {
			return nil, err
		}
		h := &tar.Header{Name: e.name[1:], Mode: e.mode, Uid: e.owner, Gid: e.owner, ModTime: epoch, Format: tar.FormatPAX}
		if e.contents == nil {
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
			seen[e.name] = true
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.contents))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.contents); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeParents writes dir and its parents, root-owned, unless seen.
func writeParents(tw *tar.Writer, dir string, seen map[string]bool) error {
	if dir == "/" || seen[dir] {
		return nil
	}
	if err := writeParents(tw, path.Dir(dir), seen); err != nil {
		return err
	}
	seen[dir] = true
	return tw.WriteHeader(&tar.Header{Name: dir[1:] + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX})
}
