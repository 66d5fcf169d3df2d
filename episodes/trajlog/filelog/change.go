package filelog

import "time"

// change is what a line changes in its segment's summary: kind is the
// event it counts (evOpen, evBegin, evStep, evEnd or evDone), ep its
// episode, and outcome, startedAt and dataset what the event says of
// the episode, where it says it. A writer queues one with each line and
// recovery reads one off each line, so that both count alike; being a
// value, queuing it allocates nothing.
type change struct {
	kind      string
	ep        string
	outcome   string
	startedAt time.Time
	dataset   string
}

// apply counts the change in s.
func (c change) apply(s *summary) {
	switch c.kind {
	case evOpen:
		s.open()
	case evBegin:
		s.begin(c.ep, c.startedAt, c.dataset)
	case evStep:
		s.step(c.ep)
	case evEnd:
		s.end(c.ep, c.outcome, c.startedAt, c.dataset)
	case evDone:
		s.endSlim(c.ep, c.outcome)
	}
}
