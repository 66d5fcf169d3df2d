package report

// Footprint counts what a Builder holds: its tasks, their distinct
// answers, the 64-bit words of their sample sets, its groups.
func (b *Builder) Footprint() int {
	n := len(b.byDiff) + len(b.byDB) + len(b.repeats)
	for _, t := range b.tasks {
		n += 1 + len(t.votes) + len(t.seen.bits) + len(t.seen.far) + len(t.ended.bits) + len(t.ended.far)
	}
	return n
}
