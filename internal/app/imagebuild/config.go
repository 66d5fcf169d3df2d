package main

import (
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// The image's settings: the final stage of the Dockerfile at the root of
// the repository says the same (dockerfile_test.go compares them).
const (
	uid     = 65532 // the sqlgym user of rootfs/etc/passwd, and its group
	binary  = "/usr/local/bin/sqlgym"
	dataDir = "/data" // the volume: --data-dir (the demo's databases, the value index, the file log)
	port    = "8765/tcp"
	caCerts = "/etc/ssl/certs/ca-certificates.crt" // for postgres:// URLs with sslmode=verify-full
)

// imageConfig is the image's run configuration: the user, environment,
// entry point, command, port, volume and health check a container of it
// starts with.
func imageConfig(version string) v1.Config {
	return v1.Config{
		User: "65532:65532",
		Env: []string{
			"PATH=/usr/local/bin",
			"SQLGYM_ADDR=0.0.0.0:8765",
			"SQLGYM_DATA_DIR=" + dataDir,
			"SQLGYM_LOG_FORMAT=json",
		},
		Entrypoint:   []string{"sqlgym"},
		Cmd:          []string{"serve"},
		WorkingDir:   dataDir,
		ExposedPorts: map[string]struct{}{port: {}},
		Volumes:      map[string]struct{}{dataDir: {}},
		Healthcheck: &v1.HealthConfig{
			Test:     []string{"CMD", "sqlgym", "healthcheck"},
			Interval: 10 * time.Second, Timeout: 5 * time.Second, StartPeriod: 30 * time.Second, Retries: 3,
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":   "sqlgym",
			"org.opencontainers.image.version": version,
			"org.opencontainers.image.source":  "https://github.com/sqlgym/sqlgym",
		},
	}
}
