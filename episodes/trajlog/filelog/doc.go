// Package filelog is the durable segmented trajectory log under
// --data-dir: a trajlog.Writer and trajlog.Reader over append-only
// segments with group-committed fsync, rotation with an index per sealed
// segment, crash recovery of a torn tail, and a report of damaged lines.
package filelog
