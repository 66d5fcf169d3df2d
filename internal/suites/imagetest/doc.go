// Package imagetest runs sqlgym's container image as a container engine
// would, without Docker: scripts/image builds the image (an OCI layout),
// the test unpacks its layers into a runc bundle whose config.json comes
// from the image's config (entry point and command, user, environment,
// working directory; /data bound to a temporary directory, the host's
// network, a read-only root), runs it with runc, waits for /healthz, runs
// the image's own HEALTHCHECK inside it, plays an episode with
// episodes/client, and checks the trajectory in PostgreSQL and the
// process's user. runc needs root; scripts/runc-up installs it. Without
// either the test skips, and under CI=true it fails.
package imagetest
