// Package soaktest holds the bounded soak test of the episode server: the
// real binary on Spider-dev, honest clients stepping episodes while
// hostile ones, all at once, send amplifying batches, oversized tags,
// requests they never read the replies of, messages they never finish,
// and never-ending queries on the honest clients' database. The honest
// clients must see no error, their latency must stay within a stated
// bound, and the server's memory under a stated ceiling.
package soaktest
