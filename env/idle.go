package env

// Idler is implemented by a DB that can give back, while no call runs on
// it, what it keeps open between calls (a SQLite database's connections:
// file descriptors, parsed schema, page cache). The next call opens them
// again. The startup check calls Idle once it has read a database's
// schema, so that checking thousands of databases leaves none of them
// open.
type Idler interface {
	// Idle closes what the database keeps open between calls, unless a
	// call is running on it.
	Idle()
}
