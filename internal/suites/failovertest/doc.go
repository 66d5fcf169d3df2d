// Package failovertest is the acceptance test of replicas: PostgreSQL
// (pgtest, a fresh schema per test), three `sqlgym serve` replicas of the
// real binary (binserver) sharing it as their trajectory store, and
// Debian's HAProxy on the committed examples/deploy/haproxy.cfg
// (haproxytest) in front of them. A Python driver
// (testdata/failover_driver.py, on the asyncio client installed as its
// README says: pyvenv) plays a few hundred scripted episodes through the
// load balancer and logs every acknowledged step. The test checks the
// store against that log (each episode's steps exactly turns 1..N, as
// acknowledged; every trajectory ended with an outcome), replays the
// store with `sqlgym replay`, and compares the rewards with a run of the
// same scripts on one plain server.
package failovertest
