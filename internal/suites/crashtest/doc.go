// Package crashtest holds the kill -9 test of the trajectory log: it
// builds the real sqlgym binary, drives hundreds of concurrent episodes
// against it, kills it with SIGKILL at random moments, restarts it on the
// same data dir, and checks with the trajlog reader that what the clients
// were told is what the disk holds.
package crashtest
