package report

// denseSamples bounds the sample indexes a sampleSet keeps as bits: a
// run's indexes are 0..K-1, so K bits a task; an index past it (a tag
// written by hand) goes into a map instead of growing the bits.
const denseSamples = 1 << 16

// sampleSet is a set of sample indexes: one bit each below denseSamples.
type sampleSet struct {
	bits []uint64
	far  map[int]struct{}
	n    int
}

// add adds i and reports whether it was not there yet.
func (s *sampleSet) add(i int) bool {
	if i < 0 || i >= denseSamples {
		if _, ok := s.far[i]; ok {
			return false
		}
		if s.far == nil {
			s.far = map[int]struct{}{}
		}
		s.far[i] = struct{}{}
		s.n++
		return true
	}
	w, b := i/64, uint64(1)<<(i%64)
	if w >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, w+1-len(s.bits))...)
	}
	if s.bits[w]&b != 0 {
		return false
	}
	s.bits[w] |= b
	s.n++
	return true
}

// len is the number of indexes in the set.
func (s *sampleSet) len() int { return s.n }
