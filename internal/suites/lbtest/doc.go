// Package lbtest checks the deployment examples against the server they
// deploy: examples/deploy/haproxy.cfg passes `haproxy -c`, and a real
// HAProxy running it in front of two real sqlgym replicas (binserver)
// spreads WebSocket episodes over both, takes a replica told to stop
// (SIGTERM) out on its /readyz while its open sockets finish their
// episodes, and sends new ones to the other; the Kubernetes manifests
// under examples/deploy/k8s probe /livez and /readyz on the port the
// server listens on, with a termination grace that covers
// --shutdown-grace. scripts/haproxy-up installs Debian's haproxy; without
// it the HAProxy tests skip, and under CI=true they fail
// (internal/testkit/haproxytest runs it).
package lbtest
