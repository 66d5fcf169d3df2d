// Command imagebuild assembles sqlgym's container image without Docker:
// the static binary scripts/image builds (with the Dockerfile's flags),
// the files, user, environment, port, volume, entry point, command and
// health check of the Dockerfile's final stage (dockerfile_test.go holds
// the two to the same), written as an OCI image layout and, where asked,
// a tarball that docker load reads. scripts/image runs it:
//
//	go run ./internal/app/imagebuild --binary build/sqlgym --out build/image --tar build/sqlgym-image.tar
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	bin := flag.String("binary", "", "the static sqlgym binary to put in the image (required)")
	certs := flag.String("ca-certs", caCerts, "the CA certificates bundle to put in the image")
	out := flag.String("out", "", "write the image as an OCI image layout into this directory, replaced (required)")
	tarPath := flag.String("tar", "", "also write the image as a tarball docker load reads")
	tag := flag.String("tag", "sqlgym:dev", "the image's name in the layout and the tarball")
	version := flag.String("version", "dev", "the image's version label")
	flag.Parse()
	if *bin == "" || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "imagebuild: --binary and --out are required, and nothing else")
		flag.Usage()
		os.Exit(2)
	}
	if err := write(*bin, *certs, *out, *tarPath, *tag, *version); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

// write builds the image and writes it out.
func write(bin, certs, out, tarPath, tag, version string) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("--tag: %w", err)
	}
	img, err := build(bin, certs, version)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	p, err := layout.Write(out, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag})); err != nil {
		return err
	}
	if tarPath != "" {
		if err := tarball.WriteToFile(tarPath, ref, img); err != nil {
			return err
		}
	}
	d, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s %s\n", tag, d)
	return nil
}
