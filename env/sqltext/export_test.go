package sqltext

// TieProbeSameText is TieProbe with the terms that repeat an output
// item's expression added as columns of their own, for the external
// tests to check that an added key holds the term's value.
func TieProbeSameText(sql string, extra int64) (Probe, bool) { return tieProbe(sql, extra, true) }
